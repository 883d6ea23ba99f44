// @ts-check
/**
 * "Send an invoice" on the Messages page: the submit-invoice body in a JSON editor, and once the
 * sandbox validated it, its findings as a table, errors first.
 */
import { ApiError, api, explain } from './api.js';
import { field, h, replace, statusRegion } from './dom.js';
import { validationTable } from './message-summary.js';

/** @typedef {import('./message-summary.js').ValidationResult} ValidationResult */

/**
 * "Send an invoice": the submit-invoice body in a JSON editor, validated by the sandbox.
 * @param {() => Promise<void>} sent
 */
export function sendInvoiceForm(sent) {
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
