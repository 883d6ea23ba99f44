/**
 * The consumer's duty for an inbound message (SPEC.md 6.1, 6.3): fetch the core document and
 * the transaction JSON, import them, then acknowledge. Shared by the deliveryNotified handler
 * and by reconciliation, so both follow exactly the same rules. The caller holds the
 * message's claim (store.ts), so no other handler, in this process or another, works on the
 * message meanwhile, and what `deliver` reads of it stays true until it writes:
 *
 * - the importer is called at most once per message: an import already recorded is not
 *   repeated. The one exception is a crash (or a deadline) between an import and its record;
 *   the next call then says `previouslyAttempted`, and the importer must use the messageId as
 *   its idempotency key (importer/README.md);
 * - each import() has a deadline (IMPORT_TIMEOUT_MS): its signal aborts then, or when the
 *   claim is lost. The call is awaited to its end all the same, with the claim renewed, so a
 *   second import can never start beside one still running;
 * - the claim is confirmed in the store before importing and before acknowledging: a holder
 *   that lost it stops (ClaimLostError) and leaves the message to its new holder;
 * - mark-as-delivered only after the import is durable (import() resolved and recorded);
 * - mark-as-failed only for a PermanentImportError, never for an API or network failure
 *   (those throw, and the caller retries);
 * - mark-as-delivered is called even when an earlier acknowledgement is recorded: a message
 *   retried manually at the service is pending again, and the call is idempotent there.
 */
import { statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { MessageDescriptor } from '../../protocol/index.ts';
import type { ApiClient } from '../api/index.ts';
import type { ClaimGuard } from '../claims/held-claim.ts';
import {
  fileDocument,
  type ImportDocument,
  type Importer,
  type ImportInput,
  type ImportResult,
  ImportTimeoutError,
  PermanentImportError,
} from '../importer/index.ts';
import type { MessageStore } from '../store/store.ts';

export type InboundOutcome = 'imported' | 'acknowledged' | 'rejected';

export interface InboundDelivery {
  /** `descriptor` from the event when it has one; fetched otherwise. */
  deliver(
    messageId: string,
    claim: ClaimGuard,
    descriptor?: MessageDescriptor,
  ): Promise<InboundOutcome>;
}

export function createInboundDelivery(deps: {
  api: ApiClient;
  importer: Importer;
  messages: MessageStore;
  logger: Logger;
  now: () => number;
  importTimeoutMs: number;
}): InboundDelivery {
  const { api, importer, messages, logger, now, importTimeoutMs } = deps;

  async function importWithDeadline(
    input: Omit<ImportInput, 'signal'>,
    claim: ClaimGuard,
  ): Promise<ImportResult> {
    const deadline = AbortSignal.timeout(importTimeoutMs);
    const late = () =>
      logger.warn(
        { messageId: input.messageId, importTimeoutMs },
        'import passed its deadline; its signal is aborted and the message stays claimed until it ends',
      );
    deadline.addEventListener('abort', late, { once: true });
    try {
      return await importer.import({ ...input, signal: AbortSignal.any([deadline, claim.signal]) });
    } catch (error) {
      if (deadline.aborted && !(error instanceof PermanentImportError)) {
        throw new ImportTimeoutError(input.messageId, importTimeoutMs, { cause: error });
      }
      throw error;
    } finally {
      deadline.removeEventListener('abort', late);
    }
  }

  return {
    async deliver(messageId, claim, eventDescriptor) {
      const key = { messageId, transfer: 'inbound' as const };
      const record = await messages.get(key);
      let outcome: InboundOutcome = 'acknowledged';
      let recordedAndConfirmed = false;
      if (record?.importedAt == null) {
        const descriptor =
          eventDescriptor ?? (await api.getMessage(messageId, { transfer: 'inbound' })).descriptor;
        const fetched = await Promise.allSettled([
          api.getCoreDocument(messageId),
          api.getTransaction(descriptor.action, messageId),
        ]);
        const spooled = fetched.flatMap((f) => (f.status === 'fulfilled' ? [f.value.path] : []));
        try {
          const [coreDocument, transaction] = fetched.map((f) => {
            if (f.status === 'rejected') throw f.reason;
            return fileDocument(f.value);
          }) as [ImportDocument, ImportDocument];
          // Sent together, the two share one commit of the store's writer.
          await Promise.all([claim.confirm(), messages.markImportStarted(key, now())]);
          const result = await importWithDeadline(
            {
              messageId,
              transfer: 'inbound',
              descriptor,
              coreDocument,
              transaction,
              previouslyAttempted: record?.importStartedAt != null,
            },
            claim,
          );
          // Recorded even if the claim was lost meanwhile (both calls are sent at once, whatever
          // becomes of the other): it is true, and it keeps the new holder from importing again
          // if it has not started yet. The claim is confirmed in the same commit, before the
          // acknowledgement below. Both answers are awaited: a lost claim is reported only once
          // the record is written (the writer may commit the two in separate batches).
          const [confirmed, recorded] = await Promise.allSettled([
            claim.confirm(),
            messages.markImported(key, result.location, now()),
          ]);
          if (confirmed.status === 'rejected') throw confirmed.reason;
          if (recorded.status === 'rejected') throw recorded.reason;
          outcome = result.status === 'imported' ? 'imported' : 'acknowledged';
          recordedAndConfirmed = true;
        } catch (error) {
          if (!(error instanceof PermanentImportError)) throw error;
          await claim.confirm();
          logger.warn({ messageId, reason: error.reason }, 'import rejected; marking as failed');
          await api.markAsFailed(messageId, error.reason);
          await messages.markAcknowledged(key, 'failed', error.reason, now());
          return 'rejected';
        } finally {
          // The spool files, unless the importer moved them into place (the usual case: a stat
          // answers that without the thrown error of removing a missing file).
          const left = spooled.filter((path) => statSync(path, { throwIfNoEntry: false }));
          await Promise.all(left.map((path) => rm(path, { force: true })));
        }
      }
      if (!recordedAndConfirmed) await claim.confirm();
      await api.markAsDelivered(messageId);
      await messages.markAcknowledged(key, 'delivered', null, now());
      logger.info({ messageId, outcome }, 'inbound message acknowledged');
      return outcome;
    },
  };
}
