// @ts-check
/**
 * The delivery log (docs/webhook-endpoints.md#routing, docs/retries.md#retry-schedule): every event newest first, with its state
 * (delivered, retrying and when next, exhausted and why); an event opens to its attempts and
 * the exact headers and body sent; an exhausted event can be redelivered with the same eventId
 * and occurredAt. It polls the admin API every second while it is shown, updating only the
 * rows that changed, so retries are watched live without losing the keyboard's place.
 */
import { api, explain, party } from './api.js';
import { every, field, formatTime, h, replace, select, statusRegion } from './dom.js';

/**
 * @typedef {{ at: string, headers: Record<string, string>, statusCode?: number, error?: string,
 *   responseTimeMs: number, bodyStart: string }} Attempt
 * @typedef {{ eventId: string, action: string, transfer: string, messageId: string,
 *   occurredAt: string, state: 'pending' | 'succeeded' | 'exhausted', reason?: string,
 *   endpointId?: string, attempts: Attempt[], nextAttemptAt?: string, body?: string }} Delivery
 */

const STATES = /** @type {[string, string][]} */ ([
  ['', 'All'],
  ['pending', 'Sending or retrying'],
  ['succeeded', 'Delivered'],
  ['exhausted', 'Exhausted'],
]);

const POLL_MS = 1000;

/** @param {import('./app.js').PageContext} context */
export async function renderDeliveries({ main, params }) {
  const state = select({ name: 'state' }, STATES, params.get('state') ?? '');
  const messageId = h('input', {
    type: 'text',
    name: 'messageId',
    value: params.get('messageId') ?? '',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const applyFilter = () => {
    const query = new URLSearchParams();
    if (state.value !== '') query.set('state', state.value);
    if (messageId.value.trim() !== '') query.set('messageId', messageId.value.trim());
    const text = query.toString();
    location.hash = `#/deliveries${text === '' ? '' : `?${text}`}`;
  };
  state.addEventListener('change', applyFilter);
  const status = statusRegion();
  const updated = h('p', { class: 'hint live' });
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'deliveries' },
    h('caption', { class: 'visually-hidden' }, 'Delivery log, newest first'),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['Occurred', 'Event', 'Message', 'State', 'Attempts', 'Actions'].map((t) =>
          h('th', { scope: 'col' }, t),
        ),
      ),
    ),
    body,
  );
  const empty = h(
    'p',
    { class: 'empty' },
    'No events yet. Send an invoice from the Messages page, or wait for the demo traffic.',
  );
  replace(
    main,
    h('h1', { tabindex: '-1' }, 'Delivery log'),
    h(
      'p',
      { class: 'lead' },
      'Every event the sandbox published for you, newest first. A failed attempt is retried 9 times over about two hours (faster when PROVIDER_TIME_SCALE is set); then the event is exhausted and can be redelivered with the same eventId.',
    ),
    h(
      'form',
      {
        class: 'filters',
        role: 'search',
        'aria-label': 'Filter the delivery log',
        onsubmit: (/** @type {SubmitEvent} */ event) => {
          event.preventDefault();
          applyFilter();
        },
      },
      field('State', state),
      field('Message id', messageId),
      h('button', { type: 'submit' }, 'Filter'),
    ),
    status.element,
    updated,
    table,
    empty,
  );

  const endpointNames = new Map(
    (await api.get(`${party.path}/endpoints`)).map(
      (/** @type {{ id: string, name: string }} */ e) => [e.id, e.name],
    ),
  );
  /** Rows by eventId, with the JSON they were drawn from, so only changed rows are redrawn. */
  const rows = new Map();
  /** Events whose details are open. */
  const open = new Set();

  async function refresh() {
    const query = new URLSearchParams();
    if (params.get('state')) query.set('state', String(params.get('state')));
    if (params.get('messageId')) query.set('messageId', String(params.get('messageId')));
    const text = query.toString();
    /** @type {Delivery[]} */
    const deliveries = await api.get(`${party.path}/deliveries${text === '' ? '' : `?${text}`}`);
    empty.hidden = deliveries.length > 0;
    table.hidden = deliveries.length === 0;
    const seen = new Set();
    /** @type {Element | null} */
    let previous = null;
    for (const delivery of deliveries) {
      seen.add(delivery.eventId);
      const json = JSON.stringify(delivery);
      let entry = rows.get(delivery.eventId);
      const changed = entry === undefined || entry.json !== json;
      if (changed) {
        const next = drawRow(delivery);
        if (entry === undefined) {
          entry = { json, row: next.row, details: next.details };
          rows.set(delivery.eventId, entry);
        } else {
          swap(entry.row, next.row);
          entry.row = next.row;
          entry.json = json;
        }
      }
      // Open details follow the event's changes (a new attempt), and only those.
      if (changed && open.has(delivery.eventId)) await drawDetails(delivery.eventId, entry.details);
      // Keep the server's order: newest first.
      const anchor = previous === null ? body.firstElementChild : previous.nextElementSibling;
      if (anchor !== entry.row) body.insertBefore(entry.row, anchor);
      body.insertBefore(entry.details, entry.row.nextElementSibling);
      previous = entry.details;
    }
    for (const [eventId, entry] of rows) {
      if (seen.has(eventId)) continue;
      entry.row.remove();
      entry.details.remove();
      rows.delete(eventId);
    }
    updated.textContent = `Updates every second. Last update ${formatTime(new Date().toISOString())}.`;
  }

  /**
   * Replaces a row, keeping the focus on the same control when it was inside.
   * @param {Element} old
   * @param {Element} next
   */
  function swap(old, next) {
    const focused = document.activeElement;
    const key =
      focused instanceof HTMLElement && old.contains(focused) ? focused.dataset.key : undefined;
    old.replaceWith(next);
    if (key !== undefined)
      /** @type {HTMLElement | null} */ (next.querySelector(`[data-key="${key}"]`))?.focus();
  }

  /** @param {Delivery} delivery */
  function drawRow(delivery) {
    const detailsId = `details-${delivery.eventId}`;
    const existing = rows.get(delivery.eventId);
    const details =
      existing?.details ??
      h('tr', { class: 'details', id: detailsId, hidden: true }, h('td', { colspan: '6' }));
    const short = delivery.eventId.slice(0, 8);
    const toggle = h(
      'button',
      {
        type: 'button',
        'data-key': 'details',
        'aria-expanded': open.has(delivery.eventId) ? 'true' : 'false',
        'aria-controls': detailsId,
        'aria-label': `Details of event ${short}`,
        onclick: async () => {
          if (open.has(delivery.eventId)) {
            open.delete(delivery.eventId);
            details.hidden = true;
            toggle.setAttribute('aria-expanded', 'false');
          } else {
            open.add(delivery.eventId);
            toggle.setAttribute('aria-expanded', 'true');
            await drawDetails(delivery.eventId, details);
          }
        },
      },
      'Details',
    );
    const redeliver =
      delivery.state === 'exhausted'
        ? h(
            'button',
            {
              type: 'button',
              'data-key': 'redeliver',
              'aria-label': `Redeliver event ${short}`,
              onclick: async () => {
                try {
                  await api.post(`/deliveries/${encodeURIComponent(delivery.eventId)}/redeliver`);
                  status.ok(
                    `Event ${short} is being redelivered, with the same eventId and occurredAt.`,
                  );
                  await refresh();
                } catch (error) {
                  status.error(explain(error));
                }
              },
            },
            'Redeliver',
          )
        : null;
    const row = h(
      'tr',
      { 'data-event-id': delivery.eventId, 'data-state': delivery.state },
      h('td', null, h('time', { datetime: delivery.occurredAt }, formatTime(delivery.occurredAt))),
      h(
        'td',
        null,
        h('strong', null, delivery.action),
        h('br'),
        h('span', { class: 'hint' }, delivery.transfer),
      ),
      h(
        'td',
        null,
        h(
          'a',
          {
            href: `#/messages/${encodeURIComponent(delivery.messageId)}`,
            title: delivery.messageId,
          },
          delivery.messageId.slice(0, 8),
        ),
      ),
      h('td', null, stateOf(delivery)),
      h('td', { class: 'number' }, String(delivery.attempts.length)),
      h('td', { class: 'actions' }, toggle, redeliver),
    );
    return { row, details };
  }

  /**
   * @param {string} eventId
   * @param {HTMLTableRowElement} details
   */
  async function drawDetails(eventId, details) {
    /** @type {Delivery} */
    const delivery = await api.get(`/deliveries/${encodeURIComponent(eventId)}`);
    const cell = /** @type {HTMLTableCellElement} */ (details.firstElementChild);
    // Headers the user opened stay open when a new attempt redraws the details.
    const opened = new Set(
      [...cell.querySelectorAll('details[open] summary')].map((summary) => summary.textContent),
    );
    const endpoint =
      delivery.endpointId === undefined
        ? 'none (not routed)'
        : (endpointNames.get(delivery.endpointId) ?? delivery.endpointId);
    replace(
      cell,
      h(
        'dl',
        { class: 'facts' },
        h('dt', null, 'Event id'),
        h('dd', null, h('code', null, delivery.eventId)),
        h('dt', null, 'Message id'),
        h('dd', null, h('code', null, delivery.messageId)),
        h('dt', null, 'Occurred at'),
        h('dd', null, h('code', null, delivery.occurredAt)),
        h('dt', null, 'Endpoint'),
        h('dd', null, endpoint),
      ),
      delivery.attempts.length === 0
        ? h('p', null, 'No attempt: nothing was sent.')
        : h(
            'table',
            { class: 'attempts' },
            h('caption', null, 'Attempts'),
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                ['#', 'Time', 'Result', 'Response time', 'Start of the answer'].map((t) =>
                  h('th', { scope: 'col' }, t),
                ),
              ),
            ),
            h(
              'tbody',
              null,
              delivery.attempts.map((attempt, index) =>
                h(
                  'tr',
                  null,
                  h('th', { scope: 'row' }, String(index + 1)),
                  h('td', null, formatTime(attempt.at)),
                  h(
                    'td',
                    null,
                    attempt.statusCode === undefined
                      ? (attempt.error ?? '')
                      : `status ${attempt.statusCode}`,
                  ),
                  h('td', { class: 'number' }, `${attempt.responseTimeMs} ms`),
                  h(
                    'td',
                    null,
                    h(
                      'code',
                      { class: 'body-start' },
                      attempt.bodyStart === '' ? '(empty)' : attempt.bodyStart,
                    ),
                  ),
                ),
              ),
            ),
          ),
      delivery.attempts.map((attempt, index) =>
        h(
          'details',
          { open: opened.has(`Headers sent in attempt ${index + 1}`) },
          h('summary', null, `Headers sent in attempt ${index + 1}`),
          h(
            'pre',
            null,
            Object.entries(attempt.headers)
              .map(([name, value]) => `${name}: ${value}`)
              .join('\n'),
          ),
        ),
      ),
      h('h3', null, 'Body sent (the same bytes in every attempt)'),
      h('pre', { class: 'body' }, delivery.body ?? ''),
    );
    details.hidden = false;
  }

  await refresh();
  const poll = every(refresh, POLL_MS);
  return () => poll.stop();
}

/** @param {Delivery} delivery */
function stateOf(delivery) {
  const last = delivery.attempts.at(-1);
  const lastResult =
    last === undefined
      ? ''
      : last.statusCode === undefined
        ? (last.error ?? '')
        : `last: status ${last.statusCode}`;
  switch (delivery.state) {
    case 'succeeded':
      return [
        h('span', { class: 'badge ok' }, 'Delivered'),
        ' ',
        h(
          'span',
          { class: 'hint' },
          last === undefined ? '' : `status ${last.statusCode} in ${last.responseTimeMs} ms`,
        ),
      ];
    case 'exhausted':
      return [
        h('span', { class: 'badge bad' }, 'Exhausted'),
        ' ',
        h('span', { class: 'reason' }, delivery.reason ?? ''),
      ];
    default:
      if (delivery.nextAttemptAt === undefined) return h('span', { class: 'badge' }, 'Sending');
      return [
        h('span', { class: 'badge warn' }, 'Retrying'),
        ' ',
        h(
          'span',
          { class: 'hint' },
          `next attempt ${formatTime(delivery.nextAttemptAt)}; ${lastResult}`,
        ),
      ];
  }
}
