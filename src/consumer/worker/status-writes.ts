/**
 * The writes of a status event once the order rule (status-order.ts) has decided, for
 * status-events.ts:
 *   applyStatusChange  stores a value the events settle: the event's newValue, or the end of
 *                      its millisecond's chain (outcome `applied`);
 *   refreshStatus      asks the service (GET /messages/:mid) and stores its answer as confirmed
 *                      (outcome `refreshed`), or, when the service answered about the other side
 *                      of the message, stores that side's answer and the event's own newValue
 *                      (outcome `applied`).
 * Each write that changes the stored value carries its notice for the status sink. Each
 * returns its outcome with its writes still under way, for the caller to settle the event with
 * (EventStore.settle's `after`).
 */
import type { Logger } from 'pino';
import type {
  MessageDescriptor,
  StatusChange,
  StatusKind,
  ValidationResult,
} from '../../protocol/index.ts';
import type { ApiClient } from '../api/index.ts';
import type { MessageKey, MessageStore } from '../store/messages.ts';
import type { StatusChangeNotice } from '../store/status-notice.ts';
import { descriptorSnapshot, descriptorStatuses, fetchedAsOf } from './message-snapshot.ts';
import type { StoredStatus } from './status-order.ts';

export interface StatusWriteDeps {
  api: ApiClient;
  messages: MessageStore;
  logger: Logger;
  now: () => number;
}

/** A step's outcome, and its writes still under way. */
export interface StatusStep<Outcome> {
  outcome: Outcome;
  writes: Promise<unknown>[];
}

/** What one status event works with, all read before anything is written. */
export interface StatusTurn {
  eventId: string;
  /** The event's message and side. */
  key: MessageKey;
  kind: StatusKind;
  /** The event's occurredAt (ms). */
  at: number;
  change: StatusChange;
  /** The value of the event's kind the consumer held before the event. */
  stored: StoredStatus;
  /** The change's validationResults, parsed (errors first); null when it carries none. */
  results: ValidationResult[] | null;
}

/** Stores `value` as a change occurred at the event's time; the outcome is `applied`. */
export function applyStatusChange(
  deps: StatusWriteDeps,
  turn: StatusTurn,
  value: string,
): StatusStep<'applied'> {
  const { key, kind, at } = turn;
  const written = deps.messages.applyStatus(
    key,
    {
      kind,
      value,
      at,
      source: 'change',
      ...statusNotice(turn, value, at, 'event'),
    },
    deps.now(),
  );
  return { outcome: 'applied', writes: [written] };
}

/** Stores the service's current value of the event's kind, fetched now. */
export async function refreshStatus(
  deps: StatusWriteDeps,
  turn: StatusTurn,
): Promise<StatusStep<'refreshed' | 'applied'>> {
  const { key, kind, at, change, stored } = turn;
  const { descriptor, servedAt } = await deps.api.getMessage(key.messageId, {
    transfer: key.transfer,
  });
  if (descriptor.transfer !== key.transfer) {
    return applyBesideOtherSide(deps, turn, descriptor, servedAt);
  }
  const value = descriptorStatuses(descriptor)[kind];
  // The answer reflects every change up to when it was made, on the service's clock: no
  // event from before then may overwrite it.
  const confirmedAt = Math.max(at, servedAt ?? at);
  const written = deps.messages.applyStatus(
    key,
    {
      kind,
      value,
      at: confirmedAt,
      source: 'fetch',
      ...statusNotice(turn, value, confirmedAt, 'refresh'),
    },
    deps.now(),
  );
  deps.logger.info(
    {
      messageId: key.messageId,
      kind,
      stored: stored.value,
      formerValue: change.formerValue,
      value,
    },
    'status refreshed from the service',
  );
  return { outcome: 'refreshed', writes: [written] };
}

/**
 * `?transfer=` is not part of the service's documented API, and a service that ignores it
 * answers with the side it chooses. The answer is applied to the side it names; of this side
 * nothing was fetched, so the event's own newValue is the best news (docs/retries.md#no-ordering),
 * stored as an unconfirmed change that newer events replace (docs/decisions.md#transfer-query).
 */
async function applyBesideOtherSide(
  deps: StatusWriteDeps,
  turn: StatusTurn,
  descriptor: MessageDescriptor,
  servedAt: number | undefined,
): Promise<StatusStep<'applied'>> {
  const { messages, now } = deps;
  const { key } = turn;
  const fetchedKey = { messageId: key.messageId, transfer: descriptor.transfer };
  const asOf = fetchedAsOf(servedAt, await messages.get(fetchedKey), now());
  const snapshot = messages.recordSnapshot(
    descriptorSnapshot(fetchedKey, descriptor, asOf, 'fetch'),
    now(),
  );
  const applied = applyStatusChange(deps, turn, turn.change.newValue);
  deps.logger.warn(
    { messageId: key.messageId, asked: key.transfer, answered: descriptor.transfer },
    'the service answered about the other side of the message; applied the event as it is',
  );
  return { outcome: applied.outcome, writes: [snapshot, ...applied.writes] };
}

/**
 * What the status sink hears of a write that changes the stored value (the store queues it
 * only if the write stores the value). One event makes at most one notice: its id is the
 * event's. The event's properties go with its own newValue only.
 */
function statusNotice(
  { eventId, key, kind, change, stored, results }: StatusTurn,
  value: string,
  noticeAt: number,
  source: StatusChangeNotice['source'],
): { notice?: StatusChangeNotice } {
  return value === stored.value
    ? {}
    : {
        notice: {
          id: eventId,
          ...key,
          kind,
          formerValue: stored.value,
          newValue: value,
          occurredAt: new Date(noticeAt).toISOString(),
          source,
          properties: value === change.newValue ? (change.properties ?? null) : null,
          validationResults: value === change.newValue ? results : null,
        } satisfies StatusChangeNotice,
      };
}
