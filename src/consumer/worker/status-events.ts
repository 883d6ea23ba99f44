/**
 * Applying status events that arrive duplicated and in any order (SPEC.md 6.3). Per message,
 * transfer and status kind the store keeps the value and the occurredAt of the change that
 * set it:
 *   - an event older than the stored change is recorded as `stale` and changes nothing; so is
 *     one of the same millisecond unless it continues from the stored value (occurredAt has
 *     millisecond resolution, and two changes of one status can share it);
 *   - when the stored value is not the event's formerValue (a change was missed, or this is
 *     the first news of the message), the current value is fetched with GET /messages/:mid
 *     and stored as of the event's occurredAt (`refreshed`);
 *   - otherwise newValue is stored (`applied`).
 * Whatever the arrival order, the value left is the one of the newest change.
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
import type { MessageRecord, MessageStore } from '../store/store.ts';
import { MalformedEventError } from './errors.ts';
import { descriptorStatuses } from './message-snapshot.ts';

export interface StatusEventInput {
  eventId: string;
  action: StatusAction;
  transfer: 'inbound' | 'outbound';
  messageId: string;
  occurredAt: string;
  data: unknown;
}

const STORED_VALUE: Record<StatusKind, (r: MessageRecord) => [string | null, number | null]> = {
  delivery: (r) => [r.deliveryStatus, r.deliveryAt],
  taxReporting: (r) => [r.taxReportingStatus, r.taxReportingAt],
  lifecycle: (r) => [r.lifecycleStatus, r.lifecycleAt],
};

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
    const [storedValue, storedAt] =
      record === undefined ? [null, null] : STORED_VALUE[kind](record);

    let outcome: 'applied' | 'stale' | 'refreshed';
    const older =
      storedAt !== null &&
      (at < storedAt || (at === storedAt && storedValue !== change.formerValue));
    if (older) {
      outcome = 'stale';
    } else if (storedValue !== change.formerValue) {
      const descriptor = await api.getMessage(event.messageId, { transfer: event.transfer });
      const value = descriptorStatuses(descriptor)[kind];
      await messages.applyStatus(key, { kind, value, at }, now());
      outcome = 'refreshed';
      logger.info(
        {
          messageId: event.messageId,
          kind,
          stored: storedValue,
          formerValue: change.formerValue,
          value,
        },
        'status refreshed from the service',
      );
    } else {
      await messages.applyStatus(key, { kind, value: change.newValue, at }, now());
      outcome = 'applied';
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
        validationResults:
          properties?.validationResults === undefined
            ? null
            : parseValidationResults(properties.validationResults),
        outcome,
      },
      now(),
    );
  };
}
