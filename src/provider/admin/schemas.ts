/**
 * Bodies, path segments and queries of the admin API (scenario and webhook routes), validated
 * with zod. Every failure becomes one InvalidRequestError listing each problem, which the
 * provider's one problem mapper answers with 400.
 */
import { z } from 'zod';
import { identifierProblem, identifierSchema, PARTY_IDENTIFIER } from '../../protocol/index.ts';
import { DOCUMENT_TYPES } from '../document-formats.ts';
import { InvalidRequestError } from '../errors.ts';
import { FAULT_MODES } from '../faults.ts';
import { FORMATS } from '../webhooks/routing.ts';

// A participant's identifier becomes the `party` of its events: the protocol's identifier rule
// (no control characters or lone surrogates, at most 256 characters) applies before the form.
const identifier = identifierSchema.regex(
  PARTY_IDENTIFIER,
  'must be of the form <scheme>:<number>',
);
const transfer = z.enum(['inbound', 'outbound']);
const jurisdiction = z.enum(['Croatia', 'Slovakia']);

export const participantSchema = z.object({
  identifier,
  name: z.string().min(1),
  countryCode: z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter country code'),
});

/** Largest padded core document a scenario can ask for (4 GiB): streamed, never held in memory. */
export const MAX_CORE_DOCUMENT_BYTES = 4 * 1024 ** 3;

export const inboundSchema = z.object({
  from: identifier.optional(),
  to: identifier.optional(),
  /** Deep-merged into the sample invoice; null removes an element. */
  invoice: z.record(z.string(), z.unknown()).optional(),
  messageHandling: z.record(z.string(), z.unknown()).optional(),
  warnings: z.boolean().optional(),
  /** The core document's type and format (docs/messaging-api.md#document-formats). */
  document: z
    .object({
      type: z.enum(DOCUMENT_TYPES),
      format: z.enum(FORMATS),
    })
    .optional(),
  /** Pad the core document to at least this many bytes. */
  coreDocumentBytes: z.number().int().min(1).max(MAX_CORE_DOCUMENT_BYTES).optional(),
});

export const messageListSchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** `more`, as the messaging API's submit-invoice takes it. */
export const outboundQuerySchema = z.object({ more: z.enum(['true', 'false']).optional() });

export const failSchema = z.object({
  errorCode: z.string().min(1).optional(),
  errorMessage: z.string().min(1).optional(),
  finalErrorCode: z.string().min(1).optional(),
  finalError: z.string().min(1).optional(),
  transfer: transfer.optional(),
  afterMs: z.number().int().min(0).optional(),
});

export const manualFailureSchema = z.object({
  errorCode: z.string().min(1).optional(),
  errorMessage: z.string().min(1).optional(),
  transfer: transfer.optional(),
});

export const parkSchema = z.object({ reason: z.string().min(1), transfer: transfer.optional() });
export const retrySchema = z.object({ transfer: transfer.optional() });

export const taxReportSchema = z.object({
  jurisdiction,
  status: z.enum(['electronic', 'non_electronic', 'failed']),
  errorCode: z.string().min(1).optional(),
  errorMessage: z.string().min(1).optional(),
  role: z.enum(['Supplier', 'Customer']).optional(),
  actor: identifier.optional(),
});

export const paymentSchema = z.object({
  paidAmount: z
    .union([
      z.string().regex(/^\d+(\.\d+)?$/, 'must be a decimal number'),
      z.number().nonnegative(),
    ])
    .transform(String),
  paymentDate: z.iso.date(),
  actor: identifier.optional(),
  jurisdiction: jurisdiction.optional(),
});

export const rejectionSchema = z.object({
  rejectionType: z.enum(['MismatchNotAffectingTaxes', 'MismatchAffectingTaxes', 'Other']),
  reason: z.string().min(1),
  actor: identifier.optional(),
  jurisdiction: jurisdiction.optional(),
});

/** Every field optional: a PUT changes what it names and keeps the rest. */
export const participantSettingsSchema = z.object({
  acknowledgementResponse: z.enum(['none', 'MLR', 'eMLR']).optional(),
  deliverDocumentsWithErrors: z.boolean().optional(),
  transferQuery: z.enum(['honoured', 'ignored']).optional(),
});

export const faultSchema = z.object({
  count: z.number().int().min(1),
  mode: z.enum(FAULT_MODES),
  retryAfterSeconds: z.number().int().min(0).optional(),
  pathPrefix: z.string().startsWith('/').optional(),
  hangMs: z.number().int().min(0).optional(),
  rate: z.number().gt(0).max(1).optional(),
  seed: z.number().int().min(0).max(0xffffffff).optional(),
});

const credentialSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('bearer'), token: z.string().min(1) }),
  z.object({ type: z.literal('basic'), username: z.string().min(1), password: z.string() }),
  z.object({ type: z.literal('header'), name: z.string().min(1), value: z.string() }),
]);

export const createEndpointSchema = z.object({
  name: z.string().trim().min(1).max(200),
  url: z.string().min(1).max(2000),
  credential: credentialSchema.optional(),
});

export const routingSchema = z.object({
  rules: z
    .array(
      z.object({
        filter: z.string().max(2000).nullable().optional(),
        target: z.string().min(1).nullable(),
        statusEventsForOwnChanges: z.boolean().optional(),
      }),
    )
    .max(100),
});

export const categorySchema = z.enum(['inbound', 'outbound']);

export const testEventSchema = z.object({
  category: categorySchema.optional(),
  // Sent as the event's action, which the consumer refuses when it is no identifier.
  action: identifierSchema.optional(),
  /** Send this previewed event instead of a new one. */
  eventId: z.string().min(1).optional(),
});

export const testEventPreviewSchema = testEventSchema.omit({ eventId: true });

export const deliveriesQuerySchema = z.object({
  state: z.enum(['pending', 'succeeded', 'exhausted']).optional(),
  messageId: z.string().min(1).optional(),
  eventId: z.string().min(1).optional(),
});

/** `<scheme>:<number>`, loosely: a typo in the path should not silently create a participant. */
const PARTY = /^[^\s:/]+:[^\s/]+$/;

/** The `:party` segment of a webhook route. */
export function parseParty(party: string): string {
  if (PARTY.test(party) && identifierProblem(party) === undefined) return party;
  throw new InvalidRequestError(
    `party: ${JSON.stringify(party)} is not of the form <scheme>:<number>`,
    'party',
    [`party: ${JSON.stringify(party)} is not of the form <scheme>:<number>`],
  );
}

/**
 * Parses `value` (an absent body counts as `{}`) or throws an InvalidRequestError listing
 * every problem; `field` is the first one's path.
 */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const violations = result.error.issues.map((issue) =>
    issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
  );
  const field = result.error.issues[0]?.path.join('.') ?? '';
  throw new InvalidRequestError(
    violations.join('; '),
    field === '' ? undefined : field,
    violations,
  );
}

/** zod gives `key?: T | undefined`; exactOptionalPropertyTypes wants the key left out instead. */
export function defined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
