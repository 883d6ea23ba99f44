/**
 * Applying status events that arrive duplicated and in any order (docs/retries.md#delivery-semantics). The rule is
 * in status-order.ts; this module reads what it needs, asks the service when the rule says
 * so, and records every event with its outcome:
 *   applied    the event's newValue, or the end of its millisecond's chain, was stored;
 *   stale      older than what is stored: nothing changed, no API call;
 *   refreshed  the value was fetched with GET /messages/:mid and stored as confirmed.
 * Whatever the arrival order, the value left is the service's current one.
 */
import type { Logger } from 'pino';
import {
  parseStatusChange,
  parseValidationResults,
  type StatusAction,
  type StatusKind,
  statusKindOf,
} from '../../protocol/index.ts';
import type { ApiClient } from '../api/index.ts';
import type { MessageRecord, MessageStore } from '../store/messages.ts';
import type { StatusChangeNotice } from '../store/status-notice.ts';
import { MalformedEventError } from './errors.ts';
import { descriptorSnapshot, descriptorStatuses, fetchedAsOf } from './message-snapshot.ts';
import { decideStatusChange, type StoredStatus } from './status-order.ts';

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

export function createStatusEventHandler(deps: {
  api: ApiClient;
  messages: MessageStore;
  logger: Logger;
  now: () => number;
}) {
  const { api, messages, logger, now } = deps;
  return async function applyStatusEvent(event: StatusEventInput): Promise<void> {
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
    // What the status sink hears of a write that changes the stored value (the store queues it
    // only if the write stores the value). One event makes at most one notice: its id is the
    // event's. The event's properties go with its own newValue only.
    const notice = (value: string, noticeAt: number, source: StatusChangeNotice['source']) =>
      value === stored.value
        ? {}
        : {
            notice: {
              id: event.eventId,
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

    let outcome: 'applied' | 'stale' | 'refreshed';
    if (decision.outcome === 'stale') {
      outcome = 'stale';
    } else if (decision.outcome === 'apply') {
      await messages.applyStatus(
        key,
        {
          kind,
          value: decision.value,
          at,
          source: 'change',
          ...notice(decision.value, at, 'event'),
        },
        now(),
      );
      outcome = 'applied';
    } else {
      const { descriptor, servedAt } = await api.getMessage(event.messageId, {
        transfer: event.transfer,
      });
      if (descriptor.transfer === event.transfer) {
        const value = descriptorStatuses(descriptor)[kind];
        // The answer reflects every change up to when it was made, on the service's clock: no
        // event from before then may overwrite it.
        const confirmedAt = Math.max(at, servedAt ?? at);
        await messages.applyStatus(
          key,
          {
            kind,
            value,
            at: confirmedAt,
            source: 'fetch',
            ...notice(value, confirmedAt, 'refresh'),
          },
          now(),
        );
        outcome = 'refreshed';
        logger.info(
          {
            messageId: event.messageId,
            kind,
            stored: stored.value,
            formerValue: change.formerValue,
            value,
          },
          'status refreshed from the service',
        );
      } else {
        // `?transfer=` is not part of the service's documented API, and a service that ignores
        // it answers with the side it chooses. The answer is applied to the side it names; of
        // this side nothing was fetched, so the event's own newValue is the best news
        // (docs/retries.md#no-ordering), stored as an unconfirmed change that newer events replace
        // (docs/decisions.md#transfer-query).
        const fetchedKey = { messageId: event.messageId, transfer: descriptor.transfer };
        const asOf = fetchedAsOf(servedAt, await messages.get(fetchedKey), now());
        await messages.recordSnapshot(
          descriptorSnapshot(fetchedKey, descriptor, asOf, 'fetch'),
          now(),
        );
        await messages.applyStatus(
          key,
          {
            kind,
            value: change.newValue,
            at,
            source: 'change',
            ...notice(change.newValue, at, 'event'),
          },
          now(),
        );
        outcome = 'applied';
        logger.warn(
          { messageId: event.messageId, asked: event.transfer, answered: descriptor.transfer },
          'the service answered about the other side of the message; applied the event as it is',
        );
      }
    }

    // A message that fails validation goes to failed with the errors (docs/statuses.md#failures);
    // its descriptor would say `rejected`, the event is where a consumer learns it.
    if (
      kind === 'delivery' &&
      change.newValue === 'failed' &&
      results?.some((r) => r.type === 'error')
    ) {
      await messages.recordSnapshot(
        { ...key, at, source: 'descriptor', statuses: {}, validationStatus: 'rejected' },
        now(),
      );
    }

    const properties = change.properties ?? null;
    await messages.recordStatusChange(
      {
        ...key,
        eventId: event.eventId,
        kind,
        formerValue: change.formerValue,
        newValue: change.newValue,
        occurredAt: at,
        properties,
        validationResults: results,
        outcome,
      },
      now(),
    );
  };
}
