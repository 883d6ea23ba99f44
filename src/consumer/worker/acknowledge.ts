/**
 * Acknowledging an inbound message at the service, the last step of its delivery
 * (inbound-delivery.ts), and recording what the service was told:
 *   delivered  mark-as-delivered, once the import is durable;
 *   failed     mark-as-failed with the importer's reason, decided by importRejection: only when
 *              import() threw a PermanentImportError. An API or network failure, or an ERP that
 *              is down, is retried by the caller, never reported as a failed message.
 * Once acknowledged either way, the message's dead deliveryNotified events have nothing left to
 * do: they are closed (closeDeadEvents: dead -> done, store.ts), saying who acknowledged the
 * message and when, so the dead-event count an operator alerts on falls again.
 */
import type { Logger } from 'pino';
import type { ApiClient } from '../api/index.ts';
import { PermanentImportError } from '../importer/index.ts';
import type { EventStore } from '../store/events.ts';
import type { Acknowledgement, MessageStore } from '../store/messages.ts';
import { ATTR, inSpan } from '../tracing/tracer.ts';
import { settleAll } from './settle-all.ts';

export interface AcknowledgeDeps {
  api: ApiClient;
  messages: MessageStore;
  /** For closing the dead events an acknowledgement makes pointless. */
  events: Pick<EventStore, 'closeDead'>;
  logger: Logger;
  now: () => number;
}

export interface Acknowledger {
  /**
   * mark-as-delivered, then recorded. `by` handles the message (DeliveryContext.by). With
   * `unfinished`, the record's writes are pushed there instead of waited for (the worker
   * settles its event with them: EventStore.settle's `after`).
   */
  delivered(messageId: string, by: string, unfinished?: Promise<unknown>[]): Promise<void>;
  /** mark-as-failed with the importer's reason, then recorded. */
  failed(messageId: string, rejection: PermanentImportError, by: string): Promise<void>;
}

/**
 * The importer's rejection of the message when `error` is one (a PermanentImportError): the
 * one case in which a message is marked as failed. Undefined for any other error, which the
 * caller retries.
 */
export function importRejection(error: unknown): PermanentImportError | undefined {
  return error instanceof PermanentImportError ? error : undefined;
}

export function createAcknowledger(deps: AcknowledgeDeps): Acknowledger {
  const { api, logger } = deps;
  // Each in its span, `acknowledge`, whose outcome says which: the API call's span under it.
  return {
    delivered: (messageId, by, unfinished) =>
      inAcknowledgeSpan(messageId, 'delivered', async () => {
        await api.markAsDelivered(messageId);
        const writes = recordAcknowledgement(deps, messageId, 'delivered', null, by);
        if (unfinished === undefined) await settleAll(writes);
        else unfinished.push(...writes);
      }),
    failed: (messageId, rejection, by) =>
      inAcknowledgeSpan(messageId, 'failed', async () => {
        logger.warn({ messageId, reason: rejection.reason }, 'import rejected; marking as failed');
        await api.markAsFailed(messageId, rejection.reason);
        await settleAll(recordAcknowledgement(deps, messageId, 'failed', rejection.reason, by));
      }),
  };
}

/**
 * Records the acknowledgement the service has taken, and closes the message's dead
 * deliveryNotified events in the same turn (on SQLite, the same commit); returns the two
 * writes under way. A crash between the two leaves such an event dead; replaying it
 * acknowledges again and closes it.
 */
function recordAcknowledgement(
  deps: AcknowledgeDeps,
  messageId: string,
  acknowledgement: Acknowledgement,
  reason: string | null,
  by: string,
): Promise<unknown>[] {
  const at = deps.now();
  const recorded = deps.messages.markAcknowledged(
    { messageId, transfer: 'inbound' },
    acknowledgement,
    reason,
    at,
  );
  const closing = closeDeadEvents(deps.events, messageId, acknowledgement, by, at);
  closing.then(
    (closed) => {
      if (closed.length === 0) return;
      deps.logger.info(
        { messageId, eventIds: closed, acknowledgement },
        'dead events of an acknowledged message closed',
      );
    },
    // Whoever waits for the writes hears of the failure.
    () => {},
  );
  return [recorded, closing];
}

function inAcknowledgeSpan(
  messageId: string,
  outcome: Acknowledgement,
  work: () => Promise<void>,
): Promise<void> {
  const attributes = { [ATTR.messageId]: messageId, [ATTR.outcome]: outcome };
  return inSpan('acknowledge', { attributes }, work);
}

/** Closes the message's dead deliveryNotified events, saying who acknowledged it and when. */
function closeDeadEvents(
  events: Pick<EventStore, 'closeDead'>,
  messageId: string,
  acknowledgement: Acknowledgement,
  by: string,
  at: number,
): Promise<string[]> {
  const resolution = `closed: message acknowledged (${acknowledgement}) by ${by} at ${new Date(at).toISOString()}`;
  return events.closeDead({
    messageId,
    transfer: 'inbound',
    action: 'deliveryNotified',
    resolution,
    now: at,
  });
}
