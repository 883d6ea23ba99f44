/**
 * Applying status events that arrive duplicated and in any order (docs/retries.md#delivery-semantics). The rule is
 * in status-order.ts; this module reads what it needs, asks the service when the rule says
 * so (the writes are in status-writes.ts), and records every event with its outcome:
 *   applied    the event's newValue, or the end of its millisecond's chain, was stored;
 *   stale      older than what is stored: nothing changed, no API call;
 *   refreshed  the value was fetched with GET /messages/:mid and stored as confirmed.
 * Whatever the arrival order, the value left is the service's current one.
 */
import {
  parseStatusChange,
  parseValidationResults,
  type StatusAction,
  type StatusKind,
  statusKindOf,
} from '../../protocol/index.ts';
import type { MessageRecord, MessageStore } from '../store/messages.ts';
import { MalformedEventError } from './errors.ts';
import { decideStatusChange, type StoredStatus } from './status-order.ts';
import {
  applyStatusChange,
  refreshStatus,
  type StatusStep,
  type StatusTurn,
  type StatusWriteDeps,
} from './status-writes.ts';

export interface StatusEventInput {
  eventId: string;
  action: StatusAction;
  transfer: 'inbound' | 'outbound';
  messageId: string;
  occurredAt: string;
  data: unknown;
}

const STORED: Record<StatusKind, (r: MessageRecord) => StoredStatus> = {
  delivery: (r) => ({ value: r.deliveryStatus, at: r.deliveryAt, confirmed: r.deliveryConfirmed }),
  taxReporting: (r) => ({
    value: r.taxReportingStatus,
    at: r.taxReportingAt,
    confirmed: r.taxReportingConfirmed,
  }),
  lifecycle: (r) => ({
    value: r.lifecycleStatus,
    at: r.lifecycleAt,
    confirmed: r.lifecycleConfirmed,
  }),
};
const NOTHING_STORED: StoredStatus = { value: null, at: null, confirmed: false };

/**
 * The handler of status events. Each call resolves once everything is read (and the service
 * asked, if need be), with the event's writes under way, all asked for in one turn: the
 * caller settles the event with them (EventStore.settle's `after`), in one commit on SQLite.
 */
export function createStatusEventHandler(deps: StatusWriteDeps) {
  const { messages, now } = deps;
  return async function applyStatusEvent(event: StatusEventInput): Promise<Promise<unknown>[]> {
    const change = parseStatusChange(event.data);
    if (change === undefined) {
      throw new MalformedEventError('status event data lacks formerValue/newValue strings');
    }
    const kind = statusKindOf(event.action);
    const at = Date.parse(event.occurredAt);
    const key = { messageId: event.messageId, transfer: event.transfer };
    const record = await messages.get(key);
    const stored = record === undefined ? NOTHING_STORED : STORED[kind](record);
    // Only a tie needs the other changes of the same millisecond.
    const sameMillisecond =
      stored.at === at && !stored.confirmed
        ? (await messages.transitionsAt(key, kind, at)).filter((t) => t.eventId !== event.eventId)
        : [];
    const decision = decideStatusChange(stored, { ...change, at }, sameMillisecond);
    const results =
      change.properties?.validationResults === undefined
        ? null
        : parseValidationResults(change.properties.validationResults);
    const turn: StatusTurn = { eventId: event.eventId, key, kind, at, change, stored, results };

    let step: StatusStep<'applied' | 'stale' | 'refreshed'> = { outcome: 'stale', writes: [] };
    if (decision.outcome === 'apply') step = applyStatusChange(deps, turn, decision.value);
    if (decision.outcome === 'refresh') step = await refreshStatus(deps, turn);

    const recorded = messages.recordStatusChange(
      {
        ...key,
        eventId: event.eventId,
        kind,
        formerValue: change.formerValue,
        newValue: change.newValue,
        occurredAt: at,
        properties: change.properties ?? null,
        validationResults: results,
        outcome: step.outcome,
      },
      now(),
    );
    return [...step.writes, ...recordValidationFailure(messages, turn, now), recorded];
  };
}

/**
 * A message that fails validation goes to failed with the errors (docs/statuses.md#failures);
 * its descriptor would say `rejected`, the event is where a consumer learns it.
 */
function recordValidationFailure(
  messages: MessageStore,
  { key, kind, at, change, results }: StatusTurn,
  now: () => number,
): Promise<void>[] {
  if (
    kind === 'delivery' &&
    change.newValue === 'failed' &&
    results?.some((r) => r.type === 'error')
  ) {
    return [
      messages.recordSnapshot(
        { ...key, at, source: 'descriptor', statuses: {}, validationStatus: 'rejected' },
        now(),
      ),
    ];
  }
  return [];
}
