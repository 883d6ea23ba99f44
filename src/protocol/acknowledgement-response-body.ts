/**
 * The JSON of an acknowledgement-level response (MLR, eMLR), a shape this project decided
 * (docs/decisions.md#acknowledgement-responses); transaction-types.ts re-exports it.
 */
import { z } from 'zod';

/**
 * The JSON of an acknowledgement-level response (MLR or eMLR), an inbound message of its own
 * that a participant set up for acknowledgements receives when its outbound invoice passes
 * validation. The service names MLRs and eMLRs without showing their content: this shape is
 * this project's (docs/decisions.md#acknowledgement-responses), a JSON view of the Peppol MLR
 * the core document carries.
 */
export interface AcknowledgementResponseBody {
  /** Which response: `MLR` (action MessageLevelResponse) or `eMLR` (EMessageLevelResponse). */
  responseType: 'MLR' | 'eMLR';
  /** UNCL 4343 response code of the Peppol MLR; `AB`, message acknowledgement, the only one sent. */
  responseCode: 'AB';
  /** Date the response was issued, `YYYY-MM-DD`. */
  issueDate: string;
  /** The messageId of the invoice this response answers (no status event links the two). */
  referencedMessageId: string;
  /** That invoice's documentNo. */
  referencedDocumentNo: string;
  /** Who sends the response (the invoice's receiver, through the network), `<scheme>:<number>`. */
  senderIdentifier: string;
  /** Who receives it (the invoice's sender), `<scheme>:<number>`. */
  receiverIdentifier: string;
}

/** The business transactions whose action names are this project's (docs/decisions.md#acknowledgement-responses). */
export const ACKNOWLEDGEMENT_RESPONSE_ACTIONS = {
  MLR: 'MessageLevelResponse',
  eMLR: 'EMessageLevelResponse',
} as const satisfies Record<AcknowledgementResponseBody['responseType'], string>;

export const acknowledgementResponseBodySchema = z.looseObject({
  responseType: z.enum(['MLR', 'eMLR']),
  responseCode: z.literal('AB'),
  issueDate: z.iso.date(),
  referencedMessageId: z.string(),
  referencedDocumentNo: z.string(),
  senderIdentifier: z.string(),
  receiverIdentifier: z.string(),
}) satisfies z.ZodType<AcknowledgementResponseBody>;
