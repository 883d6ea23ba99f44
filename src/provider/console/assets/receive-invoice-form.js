// @ts-check
/** "Receive an invoice" on the Messages page: a counterparty's invoice at the press of a button. */
import { api, explain, party } from './api.js';
import { field, h, select, statusRegion } from './dom.js';

/** @typedef {import('./message-summary.js').Party} Party */

/**
 * "Receive an invoice": a counterparty sends the sandbox participant a valid sample invoice.
 * @param {() => Promise<void>} sent
 */
export async function receiveInvoiceForm(sent) {
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
