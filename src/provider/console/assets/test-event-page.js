// @ts-check
/**
 * Test event (docs/webhook-endpoints.md#test-events): choose an endpoint, a category (by default the first one
 * routed to it) and an action of that category; the exact body is previewed (the admin API
 * generates it and sends exactly that one); the result shows the endpoint's status code,
 * response time and the start of its answer, and for the failures of docs/webhook-endpoints.md#test-event-diagnostics the
 * admin API's hint.
 */
import { ApiError, api, explain, party } from './api.js';
import { field, h, replace, select, statusRegion } from './dom.js';

/**
 * @typedef {{ category: string, action: string, actions: string[], eventId: string, body: string }} Preview
 * @typedef {{ statusCode?: number, error?: string, responseTimeMs: number, bodyStart: string,
 *   success: boolean, hint?: string, request: { headers: Record<string, string>, body: string } }} Result
 */

const CATEGORY_LABELS = /** @type {[string, string][]} */ ([
  ['inbound', 'Inbound messages'],
  ['outbound', 'Outbound messages'],
]);

/** @param {import('./app.js').PageContext} context */
export async function renderTestEvent({ main, params }) {
  /** @type {{ id: string, name: string, url: string }[]} */
  const endpoints = await api.get(`${party.path}/endpoints`);
  const heading = h('h1', { tabindex: '-1' }, 'Send a test event');
  const lead = h(
    'p',
    { class: 'lead' },
    'A generated event (random ids, a sample invoice, test: true) goes straight to the endpoint you choose, whatever the routing, signed with its secret and carrying its credential. A consumer stores it and never imports it.',
  );
  if (endpoints.length === 0) {
    replace(
      main,
      heading,
      lead,
      h(
        'p',
        { class: 'empty' },
        'No endpoint yet. ',
        h('a', { href: '#/endpoints' }, 'Add one on the Endpoints page.'),
      ),
    );
    return undefined;
  }
  const wanted = params.get('endpoint');
  const endpoint = select(
    { name: 'endpoint' },
    endpoints.map((e) => /** @type {[string, string]} */ ([e.id, `${e.name} (${e.url})`])),
    endpoints.some((e) => e.id === wanted) ? (wanted ?? undefined) : endpoints[0]?.id,
  );
  const category = select({ name: 'category' }, CATEGORY_LABELS, 'inbound');
  const action = select({ name: 'action' }, []);
  const preview = h('pre', { class: 'body', id: 'test-event-preview', tabindex: '0' });
  const send = h('button', { type: 'submit', class: 'primary' }, 'Send test event');
  const status = statusRegion();
  const result = h('div');
  /** @type {Preview | undefined} */
  let current;

  /** Asks the admin API for the event to send; `input` empty: the endpoint's defaults. */
  async function refreshPreview(/** @type {{ category?: string, action?: string }} */ input) {
    try {
      /** @type {Preview} */
      const next = await api.post(
        `${party.path}/endpoints/${encodeURIComponent(endpoint.value)}/test-event/preview`,
        input,
      );
      current = next;
      category.value = next.category;
      replace(
        action,
        next.actions.map((a) =>
          h('option', { value: a, selected: a === next.action ? true : undefined }, a),
        ),
      );
      preview.textContent = next.body;
      status.clear();
    } catch (error) {
      // An action the new category lacks: fall back to the category's default.
      if (error instanceof ApiError && error.status === 400 && input.action !== undefined) {
        await refreshPreview({
          ...(input.category === undefined ? {} : { category: input.category }),
        });
        return;
      }
      status.error(explain(error));
    }
  }

  endpoint.addEventListener('change', () => void refreshPreview({ action: action.value }));
  category.addEventListener(
    'change',
    () => void refreshPreview({ category: category.value, action: action.value }),
  );
  action.addEventListener(
    'change',
    () => void refreshPreview({ category: category.value, action: action.value }),
  );

  const form = h(
    'form',
    {
      'aria-labelledby': 'test-event-form',
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        if (current === undefined) return;
        send.disabled = true;
        status.ok('Sending…');
        try {
          /** @type {Result} */
          const answer = await api.post(
            `${party.path}/endpoints/${encodeURIComponent(endpoint.value)}/test-event`,
            {
              eventId: current.eventId,
            },
          );
          showResult(answer);
          status.ok(
            answer.statusCode === undefined
              ? `The test event failed: ${answer.error ?? 'no answer'}.`
              : `The endpoint answered ${answer.statusCode} in ${answer.responseTimeMs} ms.`,
          );
        } catch (error) {
          status.error(explain(error));
        } finally {
          send.disabled = false;
          // The next send is a new event, with new ids.
          await refreshPreview({ category: category.value, action: action.value });
        }
      },
    },
    h('h2', { id: 'test-event-form', class: 'visually-hidden' }, 'Test event'),
    h(
      'div',
      { class: 'row' },
      field('Endpoint', endpoint),
      field('Event category', category, 'By default the first category routed to the endpoint.'),
      field('Action', action),
    ),
    h(
      'h2',
      null,
      h('label', { for: 'test-event-preview' }, 'Request body: exactly what will be sent'),
    ),
    preview,
    send,
    status.element,
  );

  /** @param {Result} answer */
  function showResult(answer) {
    const outcome =
      answer.statusCode === undefined
        ? h(
            'span',
            { class: 'badge bad' },
            answer.error?.startsWith('timeout') ? 'Timeout' : 'No answer',
          )
        : h('span', { class: `badge ${answer.success ? 'ok' : 'bad'}` }, String(answer.statusCode));
    replace(
      result,
      h(
        'section',
        { class: 'result', 'aria-labelledby': 'test-event-result' },
        h('h2', { id: 'test-event-result' }, 'Result'),
        h(
          'dl',
          { class: 'facts' },
          h('dt', null, 'Status code'),
          h(
            'dd',
            { 'data-testid': 'status-code' },
            outcome,
            answer.error === undefined ? null : [' ', answer.error],
          ),
          h('dt', null, 'Response time'),
          h('dd', { 'data-testid': 'response-time' }, `${answer.responseTimeMs} ms`),
          h('dt', null, 'Start of the answer'),
          h(
            'dd',
            null,
            h(
              'code',
              { class: 'body-start' },
              answer.bodyStart === '' ? '(empty)' : answer.bodyStart,
            ),
          ),
        ),
        answer.hint === undefined
          ? null
          : h(
              'p',
              { class: 'hint-box', role: 'note' },
              h('strong', null, 'What to check: '),
              answer.hint,
            ),
        h(
          'details',
          null,
          h('summary', null, 'Request sent'),
          h(
            'pre',
            null,
            Object.entries(answer.request.headers)
              .map(([name, value]) => `${name}: ${value}`)
              .join('\n'),
          ),
          h('pre', { class: 'body' }, answer.request.body),
        ),
      ),
    );
  }

  replace(main, heading, lead, form, result);
  await refreshPreview({});
  return undefined;
}
