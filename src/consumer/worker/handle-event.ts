/**
 * What the worker does with one inbox event, by action (docs/events.md#actions):
 *   created                 record the message (its descriptor) and nothing else
 *   deliveryNotified in     import the documents and acknowledge (inbound-delivery.ts)
 *   deliveryNotified out    record that validation passed
 *   (either, outbound)      settle the submission outbox's invoice of that number, if one
 *                           is waiting for its message id (docs/submissions.md)
 *   *StatusChanged          apply the status change in order (status-events.ts)
 *   test events, unknown    skipped: stored and answered, never acted upon
 */
import {
  isStatusAction,
  isValidationOutcome,
  JsonShapeError,
  type MessageDescriptor,
  parseBoundedJson,
  parseMessageDescriptor,
  WEBHOOK_JSON_LIMITS,
} from '../../protocol/index.ts';
import type { ClaimGuard } from '../claims/held-claim.ts';
import type { StoredEvent } from '../store/events.ts';
import { SUBMISSION_SLACK_MS, type SubmissionStore } from '../store/submissions.ts';
import { MalformedEventError } from './errors.ts';
import { createInboundDelivery, type InboundDeliveryDeps } from './inbound-delivery.ts';
import { descriptorSnapshot, withNotices } from './message-snapshot.ts';
import { settleAll } from './settle-all.ts';
import { createStatusEventHandler } from './status-events.ts';

export type HandleOutcome = 'done' | 'skipped';

/** How a handler ended. */
export interface Handled {
  outcome: HandleOutcome;
  /**
   * Its last writes, still under way: the event is settled with them and never without them
   * (EventStore.settle's `after`; on SQLite, in their commit). @default none
   */
  writes?: Promise<unknown>[];
}

/** Handles one event while its message's claim is held (`claim`). */
export type EventHandler = (event: StoredEvent, claim: ClaimGuard) => Promise<Handled>;

export interface EventHandlerDeps extends InboundDeliveryDeps {
  /** The submission outbox, which an outbound message's descriptor may settle. */
  submissions?: Pick<SubmissionStore, 'linkCreated'>;
}

export function createEventHandler(deps: EventHandlerDeps): EventHandler {
  const inbound = createInboundDelivery(deps);
  const applyStatusEvent = createStatusEventHandler(deps);

  // Each case leaves its last writes under way (`writes`), for the event to be settled with.
  return async (event, claim) => {
    if (event.flag !== null) return { outcome: 'skipped' };
    const data = readEventData(event);
    if (isStatusAction(event.action)) {
      const writes = await applyStatusEvent({ ...event, action: event.action, data });
      return { outcome: 'done', writes };
    }
    const descriptor = parseMessageDescriptor(data);
    if (event.action === 'created') {
      return { outcome: 'done', writes: await recordDescriptor(deps, event, descriptor) };
    }
    if (event.action === 'deliveryNotified') {
      // Outbound, this event is the service's word that validation passed (docs/events.md#outbound-delivery-notified),
      // whatever its data says.
      const writes = await recordDescriptor(
        deps,
        event,
        descriptor,
        event.transfer === 'outbound' ? (descriptor?.validationStatus ?? 'approved') : undefined,
      );
      if (event.transfer === 'outbound') return { outcome: 'done', writes };
      // Inbound, the descriptor is stored before the import starts.
      await settleAll(writes);
      const unfinished: Promise<unknown>[] = [];
      try {
        await inbound.deliver(event.messageId, claim, {
          by: `the worker handling event ${event.eventId}`,
          descriptor,
          unfinished,
        });
      } catch (error) {
        await Promise.allSettled(unfinished);
        throw error;
      }
      return { outcome: 'done', writes: unfinished };
    }
    // Ingress flags unknown actions; an action unknown to this build is skipped the same way.
    return { outcome: 'skipped' };
  };
}

/**
 * The envelope's `data`, parsed from the stored body. The body is parsed a second time here, on
 * the event loop ingress shares: the inbox keeps the signed bytes, not the parsed `data` (a
 * column for it is a store migration), and what ingress parsed cannot be handed over, since the
 * event may be handled by another process or after a restart. The second parse is kept cheap
 * and bounded instead: these bytes passed the same shape limits at ingress and at most
 * WEBHOOK_MAX_BODY_BYTES, and they are checked again (one pass, about a millisecond a MiB)
 * because a row may predate the limits or have been changed by hand, and a bomb must not reach
 * JSON.parse that way either.
 */
function readEventData(event: StoredEvent): unknown {
  try {
    return (parseBoundedJson(event.body, WEBHOOK_JSON_LIMITS) as { data?: unknown } | null)?.data;
  } catch (error) {
    // Ingress stores only parsed bodies within the limits; a row that is not one was stored
    // by an older version or changed by hand.
    throw new MalformedEventError(
      error instanceof JsonShapeError
        ? `stored body is over the JSON shape limits: ${error.message}`
        : 'stored body is not JSON',
    );
  }
}

/**
 * Records the message's descriptor carried by a `created` or `deliveryNotified` event, with
 * `validationStatus` when the event itself says it, and links an outbound one to the
 * submission outbox; resolves once what it needs is read, with those writes under way.
 */
async function recordDescriptor(
  deps: Pick<EventHandlerDeps, 'messages' | 'submissions' | 'now'>,
  event: StoredEvent,
  descriptor: MessageDescriptor | undefined,
  validationStatus?: string,
): Promise<Promise<unknown>[]> {
  const { messages, now } = deps;
  const key = { messageId: event.messageId, transfer: event.transfer };
  const { validationStatus: carried, ...snapshot } = descriptorSnapshot(
    key,
    descriptor,
    Date.parse(event.occurredAt),
  );
  const value = validationStatus ?? carried;
  // Events arrive in any order: a `created` descriptor from before validation (`none`) that
  // arrives after the outcome must not undo it. Only an outcome replaces an outcome; the
  // claim on the message keeps this read and the write below from interleaving with others.
  const record = await messages.get(key);
  const keep =
    value !== undefined &&
    (isValidationOutcome(value) || !isValidationOutcome(record?.validationStatus));
  const recorded = messages.recordSnapshot(
    withNotices(keep ? { ...snapshot, validationStatus: value } : snapshot, record, event.eventId),
    now(),
  );
  if (event.transfer === 'outbound' && descriptor !== undefined && deps.submissions) {
    return [recorded, ...linkSubmission(deps.submissions, event.messageId, descriptor, now)];
  }
  return [recorded];
}

/**
 * An invoice of the outbox whose submit reply was lost (or is still on its way) learns its
 * message id here, with no lookup and no second submit; the write under way, if any.
 */
function linkSubmission(
  submissions: Pick<SubmissionStore, 'linkCreated'>,
  messageId: string,
  descriptor: MessageDescriptor,
  now: () => number,
): Promise<unknown>[] {
  const received = Date.parse(descriptor.timeReceived);
  if (!Number.isFinite(received)) return [];
  return [
    submissions.linkCreated(descriptor.documentNo, messageId, received, SUBMISSION_SLACK_MS, now()),
  ];
}
