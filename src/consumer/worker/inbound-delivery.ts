/**
 * The consumer's duty for an inbound message (docs/events.md#message-events, docs/retries.md#delivery-semantics): fetch the core document and
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
 *   retried manually at the service is pending again, and the call is idempotent there;
 * - once acknowledged (delivered or failed), the message's dead deliveryNotified events have
 *   nothing left to do: they are closed (dead -> done, store.ts), saying who acknowledged it,
 *   so the dead-event count an operator alerts on falls again.
 *
 * Outcomes, each with its own log line:
 *   imported          import() took the documents now, then the acknowledgement
 *   already_imported  import() said an earlier call had taken them, then the acknowledgement
 *   acknowledged      an import was recorded earlier; only the acknowledgement happened now
 *   rejected          import() threw a PermanentImportError: marked as failed with its reason
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
import type { EventStore } from '../store/events.ts';
import type { Acknowledgement, MessageStore } from '../store/messages.ts';
import { describeError } from './errors.ts';

export type InboundOutcome = 'imported' | 'already_imported' | 'acknowledged' | 'rejected';

const OUTCOME_LINES: Readonly<Record<InboundOutcome, string>> = {
  imported: 'inbound message imported and acknowledged',
  already_imported: 'inbound message already imported, the importer said; acknowledged',
  acknowledged: 'inbound message acknowledged; its import was recorded earlier',
  rejected: 'inbound message rejected by the importer; marked as failed',
};

export interface DeliveryContext {
  /**
   * Who handles the message, as the dead events its acknowledgement closes record it:
   * `reconciliation`, `the worker handling event <eventId>`.
   */
  by: string;
  /** The descriptor carried by the event, when it has one; fetched otherwise. */
  descriptor?: MessageDescriptor | undefined;
}

export interface InboundDelivery {
  deliver(messageId: string, claim: ClaimGuard, context: DeliveryContext): Promise<InboundOutcome>;
}

export function createInboundDelivery(deps: {
  api: ApiClient;
  importer: Importer;
  messages: MessageStore;
  /** For closing the dead events an acknowledgement makes pointless. */
  events: Pick<EventStore, 'closeDead'>;
  logger: Logger;
  now: () => number;
  importTimeoutMs: number;
}): InboundDelivery {
  const { api, importer, messages, events, logger, now, importTimeoutMs } = deps;

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

  /**
   * Records the acknowledgement the service has taken, and closes the message's dead
   * deliveryNotified events in the same turn (on SQLite, usually the same commit). A crash
   * between the two leaves such an event dead; replaying it acknowledges again and closes it.
   */
  async function recordAcknowledgement(
    messageId: string,
    acknowledgement: Acknowledgement,
    reason: string | null,
    by: string,
  ): Promise<void> {
    const at = now();
    const resolution = `closed: message acknowledged (${acknowledgement}) by ${by} at ${new Date(at).toISOString()}`;
    const [recorded, closing] = await Promise.allSettled([
      messages.markAcknowledged({ messageId, transfer: 'inbound' }, acknowledgement, reason, at),
      events.closeDead({
        messageId,
        transfer: 'inbound',
        action: 'deliveryNotified',
        resolution,
        now: at,
      }),
    ]);
    if (recorded.status === 'rejected') throw recorded.reason;
    if (closing.status === 'rejected') throw closing.reason;
    const closed = closing.value;
    if (closed.length > 0) {
      logger.info(
        { messageId, eventIds: closed, acknowledgement },
        'dead events of an acknowledged message closed',
      );
    }
  }

  return {
    async deliver(messageId, claim, { by, descriptor: eventDescriptor }) {
      const key = { messageId, transfer: 'inbound' as const };
      const record = await messages.get(key);
      let outcome: InboundOutcome = 'acknowledged';
      let location = record?.importLocation ?? null;
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
          await settleBoth(claim.confirm(), messages.markImportStarted(key, now()));
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
          ).catch(async (error: unknown) => {
            // A transient failure is kept on the message for the operator (the admin view's
            // importError); the error itself goes on to the caller, which retries.
            if (!(error instanceof PermanentImportError)) {
              await messages.markImportFailed(key, describeError(error), now()).catch((e) => {
                logger.warn({ messageId, err: e }, 'could not record the import error');
              });
            }
            throw error;
          });
          // Recorded even if the claim was lost meanwhile (both calls are sent at once, whatever
          // becomes of the other): it is true, and it keeps the new holder from importing again
          // if it has not started yet. The claim is confirmed in the same commit, before the
          // acknowledgement below. allSettled, not all: a lost claim rejects at once, and the
          // record must be committed before this call ends all the same.
          await settleBoth(claim.confirm(), messages.markImported(key, result.location, now()));
          outcome = result.status;
          location = result.location;
          recordedAndConfirmed = true;
        } catch (error) {
          if (!(error instanceof PermanentImportError)) throw error;
          await claim.confirm();
          logger.warn({ messageId, reason: error.reason }, 'import rejected; marking as failed');
          await api.markAsFailed(messageId, error.reason);
          await recordAcknowledgement(messageId, 'failed', error.reason, by);
          logger.info(
            { messageId, outcome: 'rejected', reason: error.reason },
            OUTCOME_LINES.rejected,
          );
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
      await recordAcknowledgement(messageId, 'delivered', null, by);
      logger.info({ messageId, outcome, location }, OUTCOME_LINES[outcome]);
      return outcome;
    },
  };
}

/** Waits for both, then throws the first failure: nothing is left running behind an error. */
async function settleBoth(a: Promise<void>, b: Promise<void>): Promise<void> {
  const settled = await Promise.allSettled([a, b]);
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
}
