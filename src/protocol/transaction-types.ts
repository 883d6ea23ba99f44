/**
 * The transaction JSON: what `GET /transactions/<kebab-case action>?messageId=` answers for a
 * message, the route chosen by the descriptor's `action` (transactionPath in transactions.ts,
 * docs/decisions.md#transaction-routes). An importer receives these bytes unparsed as
 * `ImportInput.transaction`; the types and schemas here say what is in them.
 *
 * - `SubmitInvoice`: the invoice data, the submit-invoice request body as the sender posted it
 *   (docs/messaging-api.md#submit-invoice-body). The mandatory elements, and the optional
 *   ones this project adds (marked "Optional (this project's)", docs/peppol.md#model); the
 *   service's own optional elements are not shown, and a body carries them as sent.
 * - `MessageLevelResponse`, `EMessageLevelResponse`: an acknowledgement-level response (MLR,
 *   eMLR), a shape this project decided (docs/decisions.md#acknowledgement-responses).
 * - `CorrectWithCredit` and any other action: named by the service, JSON not shown.
 *
 * The schemas are loose (unknown fields pass through) and check only presence and JSON type,
 * not formats: a document the network let through with errors (docs/events.md#documents-with-errors)
 * can lack a mandatory element, so parse with `safeParse` and decide what a failure means for
 * your import rather than assume a message always conforms.
 */
import type { AcknowledgementResponseBody } from './acknowledgement-response-body.ts';
import { acknowledgementResponseBodySchema } from './acknowledgement-response-body.ts';
import type { SubmitInvoiceBody } from './submit-invoice-body.ts';
import { submitInvoiceBodySchema } from './submit-invoice-body.ts';

// Each transaction's JSON has a module of its own; this one pairs them with their actions.
export * from './acknowledgement-response-body.ts';
export * from './submit-invoice-body.ts';

/**
 * The transaction JSON by the descriptor's `action`. `CorrectWithCredit` is named by the
 * service (a credit note correcting an invoice) but its JSON is not shown, and the simulator
 * sends none: treat it, and any action not listed, as unknown JSON.
 */
export interface TransactionJsonByAction {
  SubmitInvoice: SubmitInvoiceBody;
  MessageLevelResponse: AcknowledgementResponseBody;
  EMessageLevelResponse: AcknowledgementResponseBody;
  CorrectWithCredit: Record<string, unknown>;
}

/** The transaction JSON of a message whose descriptor has `action` A; `unknown` for other actions. */
export type TransactionJson<A extends string> = A extends keyof TransactionJsonByAction
  ? TransactionJsonByAction[A]
  : unknown;

/** A schema for each transaction JSON the simulator sends, by action. */
export const transactionJsonSchemas = {
  SubmitInvoice: submitInvoiceBodySchema,
  MessageLevelResponse: acknowledgementResponseBodySchema,
  EMessageLevelResponse: acknowledgementResponseBodySchema,
} as const;
