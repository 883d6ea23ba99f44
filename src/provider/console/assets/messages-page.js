// @ts-check
/**
 * Messages: every message with the three statuses of each side, an inbound invoice from a
 * counterparty at the press of a button, an outbound invoice from a JSON editor (its
 * validation results as a table, errors first), and, per message, the scenario actions of
 * the admin API: what the receiver, the network, a tax authority or a person in the
 * management console would do. Whether an action fits the message is the sandbox's call: the
 * console offers every action and shows the sandbox's answer.
 */
import { ApiError, api, explain, party } from './api.js';
import { every, field, formatTime, h, replace, select, statusRegion } from './dom.js';
import { renderMessage, statusBadge, validationTable } from './message-page.js';

/**
 * @typedef {{ status: string, taxReportingStatus: string, lifecycleStatus: string }} Side
 * @typedef {{ identifier: string, name: string }} Party
 * @typedef {{ id: string, documentNo: string, timeReceived: string, origin: Party,
 *   destination: Party, validationStatus: string, sides: { inbound?: Side, outbound?: Side },
 *   validationResultCount: number }} Summary
 * @typedef {{ type: string, code: string, message: string, location: string }} ValidationResult
 * @typedef {{ eventId: string, action: string, transfer: string, occurredAt: string,
 *   data: { formerValue?: string, newValue?: string, properties?: Record<string, string> } }} Envelope
 */

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
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        [
          'Received',
          'Document',
          'From',
          'To',
          'Side',
          'Delivery',
          'Tax reporting',
          'Lifecycle',
          'Validation',
        ].map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
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
    await inboundForm(() => refresh()),
    outboundForm(() => refresh()),
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

/**
 * "Receive an invoice": a counterparty sends the sandbox participant a valid sample invoice.
 * @param {() => Promise<void>} sent
 */
async function inboundForm(sent) {
  /** @type {{ items: (Party & { countryCode: string })[] }} */
  const { items } = await api.get('/participants');
  const senders = items.filter((p) => p.identifier !== party.id);
  const from = select(
    { name: 'from' },
    senders.map(
      (p) => /** @type {[string, string]} */ ([p.identifier, `${p.name} (${p.identifier})`]),
    ),
  );
  const warnings = h('input', { type: 'checkbox', name: 'warnings' });
  const status = statusRegion();
  return h(
    'form',
    {
      class: 'panel',
      'aria-labelledby': 'receive-invoice',
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        try {
          const { messageId } = await api.post('/messages/inbound', {
            from: from.value,
            ...(warnings.checked ? { warnings: true } : {}),
          });
          status.ok(
            `Invoice ${messageId} is on its way to ${party.name}. Watch it in the delivery log.`,
          );
          await sent();
        } catch (error) {
          status.error(explain(error));
        }
      },
    },
    h('h2', { id: 'receive-invoice' }, 'Receive an invoice'),
    h(
      'p',
      { class: 'hint' },
      'A counterparty sends you a valid sample invoice: created, then deliveryNotified once it passed validation.',
    ),
    h(
      'div',
      { class: 'row' },
      field('From', from),
      h('label', { class: 'check' }, warnings, ' With a validation warning (SIM-IL-03)'),
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Send me an invoice'),
    status.element,
  );
}

/**
 * "Send an invoice": the submit-invoice body in a JSON editor, validated by the sandbox.
 * @param {() => Promise<void>} sent
 */
function outboundForm(sent) {
  const editor = h('textarea', { name: 'invoice', rows: '16', spellcheck: 'false', class: 'json' });
  const more = h('input', { type: 'checkbox', name: 'more' });
  const status = statusRegion();
  const outcome = h('div');
  void fetch('/console/example-invoice.json')
    .then((res) => res.json())
    .then((example) => {
      editor.value = JSON.stringify(example, null, 2);
    });
  return h(
    'form',
    {
      class: 'panel',
      'aria-labelledby': 'send-invoice',
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        replace(outcome);
        let body;
        try {
          body = JSON.parse(editor.value);
        } catch (error) {
          editor.setAttribute('aria-invalid', 'true');
          status.error(
            `The editor does not hold valid JSON: ${error instanceof Error ? error.message : String(error)}`,
          );
          editor.focus();
          return;
        }
        editor.removeAttribute('aria-invalid');
        try {
          const { messageId, status: submitted } = await api.post(
            `/messages/outbound${more.checked ? '?more=true' : ''}`,
            body,
          );
          status.ok(`Submitted: message ${messageId}, status ${submitted}. Validating…`);
          const message = await validated(messageId);
          await sent();
          replace(outcome, validationOutcome(message));
          if (message.validationStatus === 'rejected') {
            const errors = message.validationResults.filter(
              (/** @type {ValidationResult} */ r) => r.type === 'error',
            ).length;
            status.error(`Message ${messageId} failed validation: ${errors} errors.`);
          } else {
            status.ok(
              message.validationStatus === 'approved'
                ? `Message ${messageId} passed validation.`
                : `Message ${messageId} is ${message.sides.outbound?.status ?? 'open'}; it is validated once no more documents follow.`,
            );
          }
        } catch (error) {
          status.error(explain(error), error instanceof ApiError ? error.violations : []);
        }
      },
    },
    h('h2', { id: 'send-invoice' }, 'Send an invoice'),
    h(
      'p',
      { class: 'hint' },
      'What your ERP posts to submit-invoice. The example is valid; remove a field or break a number to see validation fail.',
    ),
    field('Submit-invoice request body (JSON)', editor),
    h(
      'label',
      { class: 'check' },
      more,
      ' More documents follow (more=true: the message stays open)',
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Submit invoice'),
    status.element,
    outcome,
  );
}

/**
 * The message once validation ran (the sandbox validates on its next tick, as the real service
 * does after the submit call), or as it is after a few seconds.
 * @param {string} messageId
 */
async function validated(messageId) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const message = await api.get(`/messages/${encodeURIComponent(messageId)}`);
    if (message.validationStatus !== 'none' || Date.now() > deadline) return message;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** @param {{ validationStatus: string, validationResults: ValidationResult[], id: string }} message */
function validationOutcome(message) {
  const results = message.validationResults;
  return h(
    'section',
    { class: 'validation', 'aria-labelledby': `validation-${message.id}` },
    h(
      'h3',
      { id: `validation-${message.id}` },
      message.validationStatus === 'rejected'
        ? 'Validation failed'
        : message.validationStatus === 'approved'
          ? 'Validation passed'
          : 'Not validated yet',
    ),
    results.length === 0 ? h('p', null, 'No findings.') : validationTable(results),
    h(
      'p',
      null,
      h('a', { href: `#/messages/${encodeURIComponent(message.id)}` }, 'Open the message'),
    ),
  );
}
