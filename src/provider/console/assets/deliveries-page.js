// @ts-check
/**
 * The delivery log (docs/webhook-endpoints.md#routing, docs/retries.md#retry-schedule): every event newest first, with its state
 * (delivered, retrying and when next, exhausted and why); an event opens to its attempts and
 * the exact headers and body sent; an exhausted event can be redelivered with the same eventId
 * and occurredAt. It polls the admin API every second while it is shown, updating only the
 * rows that changed, so retries are watched live without losing the keyboard's place.
 */
import { api, explain, party } from './api.js';
import { renderDeliveryDetails } from './delivery-details.js';
import { deliveryState } from './delivery-state.js';
import { every, field, formatTime, h, replace, select, statusRegion, tableHead } from './dom.js';

/** @typedef {import('./delivery-details.js').Delivery} Delivery */

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
    tableHead(['Occurred', 'Event', 'Message', 'State', 'Attempts', 'Actions']),
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
      h('td', null, deliveryState(delivery)),
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
    const endpoint =
      delivery.endpointId === undefined
        ? 'none (not routed)'
        : (endpointNames.get(delivery.endpointId) ?? delivery.endpointId);
    renderDeliveryDetails(cell, delivery, endpoint);
    details.hidden = false;
  }

  await refresh();
  const poll = every(refresh, POLL_MS);
  return () => poll.stop();
}
