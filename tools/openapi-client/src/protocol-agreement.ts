/**
 * The types a forker generates from docs/openapi.json and the project's own in src/protocol
 * (what the consumer is written against) describe the same bodies: each pair below must be
 * assignable both ways, or `npm run typecheck` here fails and the compiler names the field
 * that differs. Checked by TypeScript 5, which compiles src/protocol as the root's 7 does.
 * Nothing here runs.
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

/**
 * Compiles only when A and B are assignable to each other: each identity function's parameter
 * must fit its return type.
 */
function agree<A, B>(_toProject: (a: A) => B, _toDocument: (b: B) => A): void {}

/**
 * T without index signatures, at every depth. The document lets the service add fields to the
 * descriptor (additionalProperties, docs/events.md#versioning); the project's interfaces name
 * the known ones only, and an interface is never assignable to an index signature.
 */
type Named<T> = T extends readonly (infer E)[]
  ? Named<E>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : number extends K ? never : K]: Named<T[K]> }
    : T;

agree<Schemas['ValidationResult'], ValidationResult>(
  (a) => a,
  (b) => b,
);
agree<Schemas['StatusChange'], StatusChange>(
  (a) => a,
  (b) => b,
);
agree<Named<Schemas['MessageDescriptor']>, MessageDescriptor>(
  (a) => a,
  (b) => b,
);
agree<Schemas['WebhookEnvelope'], WebhookEnvelope>(
  (a) => a,
  (b) => b,
);

// Each webhook's body: the envelope with its action and the data that action carries.
agree<Named<WebhookPayload<'created'>>, MessageEvent & { action: 'created' }>(
  (a) => a,
  (b) => b,
);
agree<Named<WebhookPayload<'deliveryNotified'>>, MessageEvent & { action: 'deliveryNotified' }>(
  (a) => a,
  (b) => b,
);
agree<WebhookPayload<'messageStatusChanged'>, StatusEvent & { action: 'messageStatusChanged' }>(
  (a) => a,
  (b) => b,
);
agree<
  WebhookPayload<'taxReportingStatusChanged'>,
  StatusEvent & { action: 'taxReportingStatusChanged' }
>(
  (a) => a,
  (b) => b,
);
agree<WebhookPayload<'lifecycleStatusChanged'>, StatusEvent & { action: 'lifecycleStatusChanged' }>(
  (a) => a,
  (b) => b,
);
