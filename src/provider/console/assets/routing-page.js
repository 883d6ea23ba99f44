// @ts-check
/**
 * Routing (docs/webhook-endpoints.md#routing): the rules of each event category, edited as a whole and saved
 * with one PUT. The admin API checks the rule set (a filter on every rule once there are two,
 * no document type and format covered twice) and saves nothing invalid; its violations, which
 * name rules by number, are shown next to those rules.
 */
import { ApiError, api, explain, party } from './api.js';
import { h, replace, select, statusRegion, tableHead, uid } from './dom.js';

/**
 * @typedef {{ filter?: string, target: string | null, statusEventsForOwnChanges: boolean }} Rule
 * @typedef {{ id: string, name: string, url: string }} Endpoint
 */

const CATEGORIES = /** @type {const} */ ([
  ['inbound', 'Inbound messages', 'Every event of messages you receive.'],
  ['outbound', 'Outbound messages', 'Every event of messages you send.'],
]);

/** @param {import('./app.js').PageContext} context */
export async function renderRouting({ main }) {
  const [routing, endpoints] = await Promise.all([
    api.get(`${party.path}/routing`),
    api.get(`${party.path}/endpoints`),
  ]);
  replace(
    main,
    h('h1', { tabindex: '-1' }, 'Routing'),
    h(
      'p',
      { class: 'lead' },
      'Which endpoint receives which events. A category with one rule sends all its events to that rule’s endpoint. With more rules, each needs a filter of ',
      h('code', null, '<document type>/<format>'),
      ' pairs (formats XML, JSON, PDF, EDI; ',
      h('code', null, '*'),
      ' matches anything), and a combination may be covered by one rule only. There is no fallback: an event no rule matches is not sent, and shows as exhausted in the delivery log.',
    ),
    CATEGORIES.map(([category, title, description]) =>
      categoryForm(category, title, description, routing[category], endpoints),
    ),
  );
  return undefined;
}

/**
 * @param {'inbound' | 'outbound'} category
 * @param {string} title
 * @param {string} description
 * @param {Rule[]} saved
 * @param {Endpoint[]} endpoints
 */
function categoryForm(category, title, description, saved, endpoints) {
  const headingId = uid('category');
  const status = statusRegion();
  const body = h('tbody');
  /** @type {Rule[]} */
  let rules = saved.map((rule) => ({ ...rule }));
  /** @type {string[]} */
  let violations = [];

  const targets = /** @type {[string, string][]} */ ([
    ...endpoints.map((e) => /** @type {[string, string]} */ ([e.id, `${e.name} (${e.url})`])),
    ['', 'Not sent'],
  ]);

  /** Violations that name rule `number` ("rule 2: ...", "rules 1 and 2 both cover ..."). */
  const violationsOf = (/** @type {number} */ number) =>
    violations.filter((v) => {
      const single = /^rule (\d+):/.exec(v);
      if (single) return Number(single[1]) === number;
      const pair = /^rules (\d+) and (\d+) /.exec(v);
      return pair !== null && (Number(pair[1]) === number || Number(pair[2]) === number);
    });

  function render() {
    replace(
      body,
      rules.length === 0
        ? h(
            'tr',
            null,
            h(
              'td',
              { colspan: '5', class: 'empty' },
              'No rules: every event of this category is not sent.',
            ),
          )
        : rules.flatMap((rule, index) => ruleRows(rule, index)),
    );
  }

  /**
   * @param {Rule} rule
   * @param {number} index
   */
  function ruleRows(rule, index) {
    const number = index + 1;
    const own = violationsOf(number);
    const errorId = uid('rule-error');
    const label = `${title}, rule ${number}`;
    const filter = h('input', {
      type: 'text',
      value: rule.filter ?? '',
      placeholder:
        rules.length === 1 ? 'none needed for a single rule' : 'Invoice/XML, CreditNote/*',
      'aria-label': `Filter of ${label}`,
      'aria-invalid': own.length > 0 ? 'true' : undefined,
      'aria-describedby': own.length > 0 ? errorId : undefined,
      oninput: () => {
        rule.filter = filter.value;
      },
    });
    const target = select(
      {
        'aria-label': `Target of ${label}`,
        onchange: () => {
          rule.target = target.value === '' ? null : target.value;
        },
      },
      targets,
      rule.target ?? '',
    );
    const ownChanges = h('input', {
      type: 'checkbox',
      checked: rule.statusEventsForOwnChanges,
      'aria-label': `Status events for own changes, ${label}`,
      onchange: () => {
        rule.statusEventsForOwnChanges = ownChanges.checked;
      },
    });
    const row = h(
      'tr',
      { class: own.length > 0 ? 'invalid' : undefined },
      h('th', { scope: 'row' }, String(number)),
      h('td', null, filter),
      h('td', null, target),
      h('td', { class: 'center' }, ownChanges),
      h(
        'td',
        null,
        h(
          'button',
          {
            type: 'button',
            'aria-label': `Remove ${label}`,
            onclick: () => {
              rules.splice(index, 1);
              render();
            },
          },
          'Remove',
        ),
      ),
    );
    if (own.length === 0) return [row];
    return [
      row,
      h(
        'tr',
        { class: 'violation' },
        h(
          'td',
          { colspan: '5', id: errorId },
          own.map((v) => h('p', null, v)),
        ),
      ),
    ];
  }

  const form = h(
    'form',
    {
      'aria-labelledby': headingId,
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        try {
          const answer = await api.put(`${party.path}/routing/${category}`, {
            rules: rules.map((rule) => ({
              filter: rule.filter?.trim() === '' ? null : rule.filter,
              target: rule.target,
              statusEventsForOwnChanges: rule.statusEventsForOwnChanges,
            })),
          });
          saved = answer[category];
          rules = saved.map((rule) => ({ ...rule }));
          violations = [];
          render();
          status.ok(
            `Saved: ${rules.length} ${title.toLowerCase()} rule${rules.length === 1 ? '' : 's'}.`,
          );
        } catch (error) {
          violations = error instanceof ApiError ? [...error.violations] : [];
          render();
          status.error(
            violations.length > 0 ? 'Nothing was saved. Fix these first:' : explain(error),
            violations,
          );
        }
      },
    },
    h(
      'table',
      { class: 'rules' },
      tableHead([
        'Rule',
        'Filter',
        'Target',
        'Status events for own changes',
        h('span', { class: 'visually-hidden' }, 'Remove'),
      ]),
      body,
    ),
    h(
      'div',
      { class: 'buttons' },
      h(
        'button',
        {
          type: 'button',
          onclick: () => {
            rules.push({
              filter: '',
              target: endpoints[0]?.id ?? null,
              statusEventsForOwnChanges: true,
            });
            render();
            const inputs = body.querySelectorAll('input[type="text"]');
            /** @type {HTMLInputElement | undefined} */ (inputs[inputs.length - 1])?.focus();
          },
        },
        `Add ${title.toLowerCase()} rule`,
      ),
      h(
        'button',
        {
          type: 'button',
          onclick: () => {
            rules = saved.map((rule) => ({ ...rule }));
            violations = [];
            status.clear();
            render();
          },
        },
        'Discard changes',
      ),
      h('button', { type: 'submit', class: 'primary' }, `Save ${title.toLowerCase()} rules`),
    ),
    status.element,
  );
  render();
  return h(
    'section',
    { class: 'category' },
    h('h2', { id: headingId }, title),
    h('p', { class: 'hint' }, description),
    form,
  );
}
