/**
 * One import() call, made with the input the consumer would make (worker/inbound-delivery.ts):
 * the descriptor from GET /messages/:mid, the core document and the transaction JSON fetched
 * by the consumer's own API client (held in memory, or in spool files under
 * DOCUMENTS_DIR/.incoming/ when large), each an ImportDocument as the consumer makes it, a
 * signal of the call's own. The documents are discarded after the call, as the consumer
 * discards them: a spool file left is removed; an importer that moved it keeps it.
 *
 * The call is awaited for at most `waitMs`: an import that ignores its signal is reported as
 * still running instead of holding the kit.
 */
import { performance } from 'node:perf_hooks';
import { describeError as describeAnyError, oneLine } from '../check-runner/error-line.ts';
import type { ApiClient, FetchedDocument } from '../consumer/api/index.ts';
import { fetchedImportDocument } from '../consumer/importer/import-documents.ts';
import {
  type ImportedResult,
  type Importer,
  type ImportInput,
  type ImportResult,
  type NotBookedResult,
  PermanentImportError,
} from '../consumer/importer/index.ts';

export type CallOutcome =
  | { ended: 'resolved'; result: ImportResult; ms: number }
  | { ended: 'rejected'; error: unknown; ms: number }
  | { ended: 'running'; ms: number };

export interface CallOptions {
  previouslyAttempted: boolean;
  /** How long the kit waits for import() to return. */
  waitMs: number;
  /** @default AbortSignal.timeout(waitMs), the call's deadline, as the consumer's */
  signal?: AbortSignal;
}

/** An input fetched and ready: `run` calls import() once with it, `discard` drops it unused. */
export interface PreparedCall {
  input: ImportInput;
  run(importer: Importer): Promise<CallOutcome>;
  discard(): Promise<void>;
}

/** Fetches the message's documents, as the consumer does before import(). */
export async function prepareCall(
  api: ApiClient,
  messageId: string,
  options: CallOptions,
): Promise<PreparedCall> {
  const { descriptor } = await api.getMessage(messageId, { transfer: 'inbound' });
  const fetched = await Promise.allSettled([
    api.getCoreDocument(messageId),
    api.getTransaction(descriptor.action, messageId),
  ]);
  const documents = fetched.flatMap((f) => (f.status === 'fulfilled' ? [f.value] : []));
  // The files are the importer's until import() returns (importer/README.md); then the
  // consumer removes what is left, and gives back the memory.
  const discard = async () => {
    await Promise.all(documents.map((document) => document.discard()));
  };
  const failed = fetched.find((f) => f.status === 'rejected');
  if (failed !== undefined) {
    await discard();
    throw failed.reason;
  }
  const [core, transaction] = fetched.map(
    (f) => (f as PromiseFulfilledResult<FetchedDocument>).value,
  ) as [FetchedDocument, FetchedDocument];
  const input: ImportInput = {
    messageId,
    transfer: 'inbound',
    descriptor,
    coreDocument: fetchedImportDocument(core),
    transaction: fetchedImportDocument(transaction),
    previouslyAttempted: options.previouslyAttempted,
    signal: options.signal ?? AbortSignal.timeout(options.waitMs),
  };
  return {
    input,
    discard,
    async run(importer) {
      const started = performance.now();
      const ms = () => Math.round(performance.now() - started);
      const call = Promise.resolve()
        .then(() => importer.import(input))
        .then(
          (result): CallOutcome => ({ ended: 'resolved', result, ms: ms() }),
          (error: unknown): CallOutcome => ({ ended: 'rejected', error, ms: ms() }),
        );
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<CallOutcome>((resolve) => {
        timer = setTimeout(() => resolve({ ended: 'running', ms: ms() }), options.waitMs);
      });
      const outcome = await Promise.race([call, gaveUp]);
      clearTimeout(timer);
      if (outcome.ended === 'running') void call.then(discard);
      else await discard();
      return outcome;
    },
  };
}

/**
 * A result the contract allows: `imported` or `already_imported` with a location that is a
 * non-empty string, or `not_booked` with a non-empty reason.
 */
export function isValidResult(result: unknown): result is ImportResult {
  if (typeof result !== 'object' || result === null) return false;
  const r = result as { status?: unknown; location?: unknown; reason?: unknown };
  if (r.status === 'not_booked') return typeof r.reason === 'string' && r.reason.trim() !== '';
  return (
    (r.status === 'imported' || r.status === 'already_imported') &&
    typeof r.location === 'string' &&
    r.location !== ''
  );
}

/** The result type of a status: NotBookedResult for `not_booked`, else ImportedResult. */
type ResultOf<S extends ImportResult['status']> = S extends 'not_booked'
  ? NotBookedResult
  : ImportedResult;

/** The outcome resolved a valid result with one of `statuses`. */
export function resolvedAs<S extends ImportResult['status']>(
  outcome: CallOutcome,
  ...statuses: S[]
): outcome is { ended: 'resolved'; result: ResultOf<S>; ms: number } {
  return (
    outcome.ended === 'resolved' &&
    isValidResult(outcome.result) &&
    (statuses as ImportResult['status'][]).includes(outcome.result.status)
  );
}

/** The location of a valid resolved outcome that took the documents, else undefined. */
export function locationOf(outcome: CallOutcome): string | undefined {
  return resolvedAs(outcome, 'imported', 'already_imported') ? outcome.result.location : undefined;
}

export function isPermanent(outcome: CallOutcome): boolean {
  return outcome.ended === 'rejected' && outcome.error instanceof PermanentImportError;
}

/** Rejected with an error the consumer retries (anything but a PermanentImportError). */
export function isTransient(outcome: CallOutcome): boolean {
  return outcome.ended === 'rejected' && !(outcome.error instanceof PermanentImportError);
}

/** `import() -> imported at PI-000001 (24 ms)`, for the evidence. */
export function describeOutcome(outcome: CallOutcome): string {
  switch (outcome.ended) {
    case 'resolved':
      if (!isValidResult(outcome.result)) {
        return `import() -> resolved ${oneLine(JSON.stringify(outcome.result) ?? String(outcome.result))}, not { status: 'imported' | 'already_imported', location: <non-empty string> } nor { status: 'not_booked', reason: <non-empty string> } (${outcome.ms} ms)`;
      }
      return outcome.result.status === 'not_booked'
        ? `import() -> not_booked, reason ${JSON.stringify(oneLine(outcome.result.reason))} (${outcome.ms} ms)`
        : `import() -> ${outcome.result.status} at ${outcome.result.location} (${outcome.ms} ms)`;
    case 'rejected':
      return `import() -> threw ${describeError(outcome.error)} (${outcome.ms} ms)`;
    case 'running':
      return `import() had not returned after ${outcome.ms} ms`;
  }
}

export function describeError(error: unknown): string {
  if (error instanceof PermanentImportError) {
    return `PermanentImportError, reason ${JSON.stringify(oneLine(error.reason))}`;
  }
  return describeAnyError(error);
}
