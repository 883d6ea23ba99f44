/**
 * The types a forker generates from docs/openapi.json and the project's own in src/protocol
 * (what the consumer is written against) describe the same bodies: every body the document
 * allows must be readable as the project's type, or `npm run typecheck` here fails and the
 * compiler names the field that differs. One way only, on purpose: the document says what
 * the service sends (closed value sets such as taxReportingStatus), the project's types what a
 * consumer accepts, which is wider (a string), so that a value the service adds later is still
 * stored rather than refused. Checked by TypeScript 5, which compiles src/protocol as the
 * root's 7 does. Nothing here runs.
 */
import type {
  MessageDescriptor,
  MessageEvent,
  StatusChange,
  StatusEvent,
  ValidationResult,
  WebhookEnvelope,
} from '../../../src/protocol/index.ts';
import type { components } from '../generated/openapi.ts';
import type { WebhookPayload } from './webhook-payloads.ts';

type Schemas = components['schemas'];

/** Compiles only when a body of the document's type A is a value of the project's type B. */
function readable<A, B>(_asProject: (a: A) => B): void {}

readable<Schemas['ValidationResult'], ValidationResult>((a) => a);
readable<Schemas['MessageStatusChange'], StatusChange>((a) => a);
readable<Schemas['TaxReportingStatusChange'], StatusChange>((a) => a);
readable<Schemas['LifecycleStatusChange'], StatusChange>((a) => a);
readable<Schemas['MessageDescriptor'], MessageDescriptor>((a) => a);
readable<Schemas['WebhookEnvelope'], WebhookEnvelope>((a) => a);

// Each webhook's body: the envelope with its action and the data that action carries.
readable<WebhookPayload<'created'>, MessageEvent & { action: 'created' }>((a) => a);
readable<WebhookPayload<'deliveryNotified'>, MessageEvent & { action: 'deliveryNotified' }>(
  (a) => a,
);
readable<WebhookPayload<'messageStatusChanged'>, StatusEvent & { action: 'messageStatusChanged' }>(
  (a) => a,
);
readable<
  WebhookPayload<'taxReportingStatusChanged'>,
  StatusEvent & { action: 'taxReportingStatusChanged' }
>((a) => a);
readable<
  WebhookPayload<'lifecycleStatusChanged'>,
  StatusEvent & { action: 'lifecycleStatusChanged' }
>((a) => a);
