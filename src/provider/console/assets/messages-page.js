// @ts-check
/**
 * Messages: every message with the three statuses of each side, an inbound invoice from a
 * counterparty at the press of a button, an outbound invoice from a JSON editor (its
 * validation results as a table, errors first), and, per message, the scenario actions of
 * the admin API: what the receiver, the network, a tax authority or a person in the
 * management console would do. Whether an action fits the message is the sandbox's call: the
 * console offers every action and shows the sandbox's answer.
 */
import { api, party } from './api.js';
import { every, formatTime, h, replace, tableHead } from './dom.js';
import { renderMessage } from './message-page.js';
import { statusBadge } from './message-summary.js';
import { receiveInvoiceForm } from './receive-invoice-form.js';
import { sendInvoiceForm } from './send-invoice-form.js';

/** @typedef {import('./message-summary.js').Summary} Summary */

/** @param {import('./app.js').PageContext} context */
export async function renderMessages(context) {
  return context.id === undefined ? renderList(context) : renderMessage(context.id, context.main);
}

/** @param {import('./app.js').PageContext} context */
async function renderList({ main }) {
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'messages' },
    h('caption', { class: 'visually-hidden' }, 'Messages, newest first'),
    tableHead([
      'Received',
      'Document',
      'From',
      'To',
      'Side',
      'Delivery',
      'Tax reporting',
      'Lifecycle',
      'Validation',
    ]),
    body,
  );
  const empty = h('p', { class: 'empty' }, 'No messages yet.');
  replace(
    main,
    h('h1', { tabindex: '-1' }, 'Messages'),
    h(
      'p',
      { class: 'lead' },
      `Invoices ${party.name} sends (outbound) and receives (inbound), with each side’s delivery, tax reporting and lifecycle status. Open a message to play the other parties: deliver, fail, park, retry, tax reports, payments, rejections.`,
    ),
    h('h2', null, 'All messages'),
    table,
    empty,
    // A new message shows in the list at once, not at the next poll.
    await receiveInvoiceForm(() => refresh()),
    sendInvoiceForm(() => refresh()),
  );

  let last = '';
  async function refresh() {
    /** @type {{ items: Summary[] }} */
    const { items } = await api.get('/messages');
    const json = JSON.stringify(items);
    if (json === last) return;
    last = json;
    empty.hidden = items.length > 0;
    table.hidden = items.length === 0;
    // A new message must not take the keyboard's place in the list away.
    const focused = document.activeElement;
    const href =
      focused instanceof HTMLAnchorElement && body.contains(focused)
        ? focused.getAttribute('href')
        : null;
    replace(
      body,
      items.flatMap((message) =>
        /** @type {const} */ (['outbound', 'inbound']).flatMap((transfer) => {
          const side = message.sides[transfer];
          if (side === undefined) return [];
          return [
            h(
              'tr',
              { 'data-message-id': message.id, 'data-transfer': transfer },
              h('td', null, formatTime(message.timeReceived)),
              h(
                'td',
                null,
                h(
                  'a',
                  { href: `#/messages/${encodeURIComponent(message.id)}` },
                  message.documentNo || message.id.slice(0, 8),
                ),
              ),
              h('td', null, message.origin.name),
              h('td', null, message.destination.name),
              h('td', null, transfer),
              h('td', null, statusBadge(side.status)),
              h('td', null, side.taxReportingStatus),
              h('td', null, side.lifecycleStatus),
              h('td', null, message.validationStatus),
            ),
          ];
        }),
      ),
    );
    if (href !== null) {
      /** @type {HTMLAnchorElement | undefined} */ (
        [...body.querySelectorAll('a')].find((link) => link.getAttribute('href') === href)
      )?.focus();
    }
  }
  await refresh();
  const poll = every(refresh, 2000);
  return () => poll.stop();
}
