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
 * - each import() has a deadline (IMPORT_TIMEOUT_MS, import-with-deadline.ts): its signal
 *   aborts then, or when the claim is lost. The call is awaited to its end all the same, with
 *   the claim renewed, so a second import can never start beside one still running;
 * - the claim is confirmed in the store before importing and before acknowledging: a holder
 *   that lost it stops (ClaimLostError) and leaves the message to its new holder;
 * - mark-as-delivered only after the import is durable (import() resolved and recorded);
 * - a message the importer does not book on purpose (`not_booked`: a response message, an
 *   MLR or eMLR, its ERP keeps no record of) is recorded as imported with the location
 *   `not booked: <reason>` and marked as delivered too: it was received, the service expects
 *   an acknowledgement of every inbound message (unacknowledged, it stays pending and every
 *   reconciliation offers it again), and mark-as-failed would report a failure its sender
 *   cannot fix (importer.ts, NotBookedResult);
 * - mark-as-failed only for a PermanentImportError, never for an API or network failure
 *   (those throw, and the caller retries): acknowledge.ts, importRejection;
 * - mark-as-delivered is called even when an earlier acknowledgement is recorded: a message
 *   retried manually at the service is pending again, and the call is idempotent there;
 * - once acknowledged (delivered or failed), the message's dead deliveryNotified events have
 *   nothing left to do: they are closed (dead -> done, store.ts; acknowledge.ts,
 *   closeDeadEvents), saying who acknowledged it, so the dead-event count an operator alerts
 *   on falls again.
 *
 * Outcomes, each with its own log line:
 *   imported          import() took the documents now, then the acknowledgement
 *   already_imported  import() said an earlier call had taken them, then the acknowledgement
 *   not_booked        import() said the message is not booked on purpose, then the
 *                     acknowledgement
 *   acknowledged      an import was recorded earlier; only the acknowledgement happened now
 *   rejected          import() threw a PermanentImportError: marked as failed with its reason
 */
import type { MessageDescriptor } from '../../protocol/index.ts';
import type { FetchedDocument } from '../api/index.ts';
import type { ClaimGuard } from '../claims/held-claim.ts';
import { fetchedImportDocument } from '../importer/import-documents.ts';
import {
  type ImportDocument,
  type Importer,
  type ImportInput,
  type ImportResult,
  recordedLocation,
} from '../importer/index.ts';
import type { MessageRecord } from '../store/messages.ts';
import { ATTR, inSpan } from '../tracing/tracer.ts';
import {
  type AcknowledgeDeps,
  type Acknowledger,
  createAcknowledger,
  importRejection,
} from './acknowledge.ts';
import { describeError } from './errors.ts';
import { importWithDeadline } from './import-with-deadline.ts';
import { settleAll } from './settle-all.ts';

export type InboundOutcome =
  | 'imported'
  | 'already_imported'
  | 'not_booked'
  | 'acknowledged'
  | 'rejected';

const OUTCOME_LINES: Readonly<Record<InboundOutcome, string>> = {
  imported: 'inbound message imported and acknowledged',
  already_imported: 'inbound message already imported, the importer said; acknowledged',
  not_booked:
    'inbound message not booked, the importer said (a document it keeps no record of); acknowledged',
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
  /**
   * Where the acknowledgement's record goes when the caller waits for it itself (the worker,
   * which settles its event in the same commit): its writes are pushed here, and `deliver`
   * resolves once the service has taken the acknowledgement. @default waited for by `deliver`
   */
  unfinished?: Promise<unknown>[] | undefined;
}

export interface InboundDelivery {
  deliver(messageId: string, claim: ClaimGuard, context: DeliveryContext): Promise<InboundOutcome>;
}

export interface InboundDeliveryDeps extends AcknowledgeDeps {
  importer: Importer;
  /** Deadline of one import() call (IMPORT_TIMEOUT_MS). */
  importTimeoutMs: number;
}

/** What the steps of a delivery work with. */
type Delivering = InboundDeliveryDeps & { acknowledge: Acknowledger };

export function createInboundDelivery(deps: InboundDeliveryDeps): InboundDelivery {
  const acknowledge = createAcknowledger(deps);
  const delivering: Delivering = { ...deps, acknowledge };
  return {
    async deliver(messageId, claim, { by, descriptor, unfinished }) {
      const record = await deps.messages.get({ messageId, transfer: 'inbound' });
      let outcome: InboundOutcome = 'acknowledged';
      let location = record?.importLocation ?? null;
      if (record?.importedAt == null) {
        const imported = await importMessage(
          delivering,
          { messageId, claim, by },
          record,
          descriptor,
        );
        if (imported === 'rejected') return 'rejected';
        outcome = imported.status;
        location = recordedLocation(imported);
      } else {
        // Imported earlier: only the acknowledgement is left, after the claim is confirmed.
        await claim.confirm();
      }
      await acknowledge.delivered(messageId, by, unfinished);
      deps.logger.info({ messageId, outcome, location }, OUTCOME_LINES[outcome]);
      return outcome;
    },
  };
}

/**
 * A message not imported yet: fetches its two documents (held in memory, or spooled to files
 * when large: api/document-calls.ts), imports them under the claim and records the import.
 * When the importer rejects the message, it is marked as failed instead and the outcome is
 * `rejected`. Any other error goes on to the caller, which retries.
 */
async function importMessage(
  deps: Delivering,
  { messageId, claim, by }: { messageId: string; claim: ClaimGuard; by: string },
  record: MessageRecord | undefined,
  eventDescriptor: MessageDescriptor | undefined,
): Promise<ImportResult | 'rejected'> {
  const { api, logger } = deps;
  const descriptor =
    eventDescriptor ?? (await api.getMessage(messageId, { transfer: 'inbound' })).descriptor;
  const fetched = await Promise.allSettled([
    api.getCoreDocument(messageId),
    api.getTransaction(descriptor.action, messageId),
  ]);
  const documents = fetched.flatMap((f) => (f.status === 'fulfilled' ? [f.value] : []));
  try {
    const [coreDocument, transaction] = fetched.map((f) => {
      if (f.status === 'rejected') throw f.reason;
      return fetchedImportDocument(f.value);
    }) as [ImportDocument, ImportDocument];
    return await importAndRecord(deps, claim, {
      messageId,
      transfer: 'inbound',
      descriptor,
      coreDocument,
      transaction,
      previouslyAttempted: record?.importStartedAt != null,
    });
  } catch (error) {
    const rejection = importRejection(error);
    if (rejection === undefined) throw error;
    await claim.confirm();
    await deps.acknowledge.failed(messageId, rejection, by);
    logger.info(
      { messageId, outcome: 'rejected', reason: rejection.reason },
      OUTCOME_LINES.rejected,
    );
    return 'rejected';
  } finally {
    await discardDocuments(documents);
  }
}

/**
 * import() between two records of it, each written together with a confirmation of the claim:
 * its start (so that the next call says `previouslyAttempted` should this one never end) and
 * its result.
 */
async function importAndRecord(
  deps: Delivering,
  claim: ClaimGuard,
  input: Omit<ImportInput, 'signal'>,
): Promise<ImportResult> {
  const { messages, logger, now } = deps;
  const key = { messageId: input.messageId, transfer: 'inbound' as const };
  // Sent together, the two share one commit of the store's writer.
  await settleAll([claim.confirm(), messages.markImportStarted(key, now())]);
  const result = await tracedImport(deps, input, claim).catch(async (error: unknown) => {
    // A transient failure is kept on the message for the operator (the admin view's
    // importError); the error itself goes on to the caller, which retries.
    if (importRejection(error) === undefined) {
      await messages.markImportFailed(key, describeError(error), now()).catch((e) => {
        logger.warn({ messageId: input.messageId, err: e }, 'could not record the import error');
      });
    }
    throw error;
  });
  // Recorded even if the claim was lost meanwhile (both calls are sent at once, whatever
  // becomes of the other): it is true, and it keeps the new holder from importing again
  // if it has not started yet. The claim is confirmed in the same commit, before the
  // acknowledgement that follows. allSettled, not all: a lost claim rejects at once, and the
  // record must be committed before this call ends all the same.
  await settleAll([claim.confirm(), messages.markImported(key, recordedLocation(result), now())]);
  return result;
}

/**
 * import() inside its span, `import`, which is active while the importer runs: a forker's ERP
 * call made with undici or fetch joins the invoice's trace with no code of theirs (when the
 * SDK registers the undici instrumentation). Its outcome is the importer's status.
 */
function tracedImport(
  deps: Delivering,
  input: Omit<ImportInput, 'signal'>,
  claim: ClaimGuard,
): Promise<ImportResult> {
  const attributes = {
    [ATTR.messageId]: input.messageId,
    [ATTR.transfer]: input.transfer,
    'invoicing.import.previously_attempted': input.previouslyAttempted,
  };
  return inSpan('import', { attributes }, async (span) => {
    const result = await importWithDeadline(deps, input, claim);
    span.setAttribute(ATTR.outcome, result.status);
    return result;
  });
}

/**
 * Done with the fetched documents: a spool file is removed unless the importer moved it into
 * place, and the bytes held in memory go back to the API client's budget.
 */
async function discardDocuments(documents: FetchedDocument[]): Promise<void> {
  await Promise.all(documents.map((document) => document.discard()));
}
