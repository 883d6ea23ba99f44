/** The webhook event envelope, the body of every webhook request (docs/events.md#envelope). */
import { z } from 'zod';
import type { MessageDescriptor } from './descriptor.ts';
import type { MessageAction, StatusAction } from './event-actions.ts';
import { identifierProblem } from './identifier.ts';
import { isPathSegment, UNSAFE_MESSAGE_ID } from './message-id.ts';
import type { StatusChange } from './status-change.ts';
import type { Transfer } from './statuses.ts';

/**
 * The body of every webhook request (docs/events.md#envelope), JSON, signed over its raw bytes.
 * `Data` is the message descriptor for message events and the status change for status
 * events; MessageEvent and StatusEvent pair each with its actions.
 */
export interface WebhookEnvelope<Data = unknown> {
  /** Unique event identifier; identical on every retry and redelivery: the dedupe key. */
  eventId: string;
  /**
   * What happened: a MessageAction (`created`, `deliveryNotified`) or a StatusAction
   * (`messageStatusChanged`, `taxReportingStatusChanged`, `lifecycleStatusChanged`). A string:
   * new actions may appear at any time, and a consumer answers 2xx to them and ignores them.
   */
  action: string;
  /** The side of the message the event is about: `inbound` or `outbound`. */
  transfer: Transfer;
  /**
   * When the event happened, not when it was sent: ISO 8601 UTC with milliseconds
   * (`2026-01-05T09:00:00.123Z`); unchanged on retry and redelivery.
   */
  occurredAt: string;
  /** `true` for test events from the management console, which import logic ignores. */
  test: boolean;
  /** The participant the webhook belongs to, `<scheme>:<number>`. */
  party: string;
  /**
   * The message to use in API calls (`:mid`). For a status event, the business message whose
   * status changed, also when an action message or a response message caused the change.
   */
  messageId: string;
  /** The message descriptor (message events) or the status change (status events). */
  data: Data;
}

/** `created` or `deliveryNotified`; `data` is the full descriptor, as GET /messages/:mid. */
export type MessageEvent = WebhookEnvelope<MessageDescriptor> & { action: MessageAction };
/** A status change of one kind; `data` is `{formerValue, newValue, properties?}`. */
export type StatusEvent = WebhookEnvelope<StatusChange> & { action: StatusAction };

/**
 * A field that is stored, compared and logged as a key: non-empty, and refused when it holds
 * what no identifier can (control characters, lone surrogates, over MAX_IDENTIFIER_LENGTH
 * characters; identifier.ts says why). One issue per field, the first that applies. The
 * simulator checks the identifiers it is given (participants, test-event actions) with it too,
 * so it never sends an event the consumer must refuse.
 */
export const identifierSchema = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    const problem = identifierProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, abort: true });
  });

/**
 * The fields a consumer needs before it can store and dedupe an event. `data` is checked
 * later, per action, by whoever acts on it: a malformed status change must not stop the
 * event from being stored and answered.
 */
const envelopeSchema = z.object({
  eventId: identifierSchema,
  // Unknown actions are stored and answered 204 (docs/events.md#versioning), so the action is
  // an identifier too: a new action may have any name, but not one with a NUL in it.
  action: identifierSchema,
  transfer: z.enum(['inbound', 'outbound']),
  occurredAt: z.iso.datetime({ offset: true }),
  test: z.boolean().optional(),
  party: identifierSchema,
  // The worker puts it in API paths: refused here, before it is stored (message-id.ts).
  messageId: identifierSchema.refine(isPathSegment, UNSAFE_MESSAGE_ID),
  data: z.unknown().optional(),
});

export type EnvelopeParseResult =
  | { ok: true; envelope: WebhookEnvelope }
  | { ok: false; problems: string[] };

/** Parses an already JSON-decoded body; `problems` name each missing or mistyped field. */
export function parseEnvelope(value: unknown): EnvelopeParseResult {
  const result = envelopeSchema.safeParse(value);
  if (!result.success) {
    return {
      ok: false,
      problems: result.error.issues.map((issue) =>
        issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
      ),
    };
  }
  const { test, data, ...rest } = result.data;
  return { ok: true, envelope: { ...rest, test: test ?? false, data: data ?? null } };
}
