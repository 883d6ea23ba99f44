/**
 * The consumer's duty for an inbound message (SPEC.md 6.1, 6.3): fetch the core document and
 * the transaction JSON, import them, then acknowledge. Shared by the deliveryNotified handler
 * and by reconciliation, so both follow exactly the same rules:
 *
 * - mark-as-delivered only after the import is durable (import() resolved);
 * - mark-as-failed only for a PermanentImportError, never for an API or network failure
 *   (those throw, and the caller retries);
 * - an import already recorded is not repeated (a crash between import and acknowledgement
 *   leads straight to mark-as-delivered on the next attempt), and the importer itself is
 *   idempotent on messageId in case the record was lost;
 * - mark-as-delivered is called even when an earlier acknowledgement is recorded: a message
 *   retried manually at the service is pending again, and the call is idempotent there.
 */
import type { Logger } from 'pino';
import type { MessageDescriptor } from '../../protocol/index.ts';
import type { ApiClient } from '../api/index.ts';
import { type Importer, PermanentImportError } from '../importer/index.ts';
import type { MessageStore } from '../store/store.ts';

export type InboundOutcome = 'imported' | 'acknowledged' | 'rejected';

export interface InboundDelivery {
  /** `descriptor` from the event when it has one; fetched otherwise. */
  deliver(messageId: string, descriptor?: MessageDescriptor): Promise<InboundOutcome>;
}

export function createInboundDelivery(deps: {
  api: ApiClient;
  importer: Importer;
  messages: MessageStore;
  logger: Logger;
  now: () => number;
}): InboundDelivery {
  const { api, importer, messages, logger, now } = deps;
  return {
    async deliver(messageId, eventDescriptor) {
      const key = { messageId, transfer: 'inbound' as const };
      const record = await messages.get(key);
      let outcome: InboundOutcome = 'acknowledged';
      if (record?.importedAt == null) {
        const descriptor =
          eventDescriptor ?? (await api.getMessage(messageId, { transfer: 'inbound' })).descriptor;
        const [coreDocument, transaction] = await Promise.all([
          api.getCoreDocument(messageId),
          api.getTransaction(descriptor.action, messageId),
        ]);
        try {
          const result = await importer.import({
            messageId,
            transfer: 'inbound',
            descriptor,
            coreDocument,
            transaction,
          });
          await messages.markImported(key, result.location, now());
          outcome = result.status === 'imported' ? 'imported' : 'acknowledged';
        } catch (error) {
          if (!(error instanceof PermanentImportError)) throw error;
          logger.warn({ messageId, reason: error.reason }, 'import rejected; marking as failed');
          await api.markAsFailed(messageId, error.reason);
          await messages.markAcknowledged(key, 'failed', error.reason, now());
          return 'rejected';
        }
      }
      await api.markAsDelivered(messageId);
      await messages.markAcknowledged(key, 'delivered', null, now());
      logger.info({ messageId, outcome }, 'inbound message acknowledged');
      return outcome;
    },
  };
}
