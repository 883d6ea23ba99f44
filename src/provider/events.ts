/**
 * The seam between the provider's message model and its webhook dispatcher. The model
 * decides which events happen; the dispatcher decides where (routing rules), how (signing,
 * credential) and how often (retries) they are sent.
 */
import type { WebhookEnvelope } from '../protocol/index.ts';

/** Document formats a routing filter names (docs/webhook-endpoints.md#routing). */
export type DocumentFormat = 'XML' | 'JSON' | 'PDF' | 'EDI';

export interface EventRouting {
  /** The event category: all inbound or all outbound events of the participant. */
  category: 'inbound' | 'outbound';
  /** Name of the message's core document (Invoice, CreditNote, ...). */
  documentType: string;
  /** Format of the message's core document. */
  format: DocumentFormat;
  /**
   * True for a status event caused by the participant itself (mark-as-delivered,
   * mark-as-failed, its own tax or lifecycle action); rules may switch those off.
   */
  ownChange: boolean;
}

export interface EventPublisher {
  /** Hands one event of `envelope.party` to that participant's webhook routing. */
  publish(envelope: WebhookEnvelope, routing: EventRouting): void;
}
