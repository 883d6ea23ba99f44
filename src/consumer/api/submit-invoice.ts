/**
 * POST /transactions/submit-invoice: the one call that is not idempotent, so the one sent with
 * the `unsent-only` retry policy (request.ts).
 */
import { requestJson } from './json-answer.ts';
import { submitInvoiceResult } from './response-schemas.ts';
import type { Transport } from './transport.ts';

export interface SubmitInvoiceCall {
  /**
   * POST /transactions/submit-invoice?more=. Not idempotent: see the comment in the method.
   * A successful answer does not mean validation passed (docs/messaging-api.md#submit-invoice).
   */
  submitInvoice(
    invoice: unknown,
    options?: { more?: boolean },
  ): Promise<{ messageId: string; status: string }>;
}

export function createSubmitInvoiceCall(transport: Transport): SubmitInvoiceCall {
  return {
    submitInvoice: (invoice, submitOptions = {}) =>
      requestJson(
        transport,
        {
          method: 'POST',
          operation: 'submit-invoice',
          path: '/transactions/submit-invoice',
          query: { more: submitOptions.more ?? false },
          json: invoice,
          // Submitting is not idempotent: a request that reached the service but whose answer
          // was lost (5xx, reset, timeout) may already have created the invoice, and sending
          // it again would create a second one. So only failures before the request left
          // (connection refused, DNS) and 429 (the service says it did not process it) are
          // retried; anything else is an ApiError with retryable=false for a person to check.
          retry: 'unsent-only',
        },
        submitInvoiceResult,
        'a submit-invoice result',
      ).then(({ messageId, status }) => ({ messageId, status })),
  };
}
