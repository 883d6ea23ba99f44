/**
 * The importer contract: the fork point of the consumer (see README.md beside this file).
 * The worker hands it the documents of an inbound message and calls mark-as-delivered only
 * after `import()` resolves.
 *
 * The guarantee: import() is called at most once per message, never for one message in two
 * places at once (the caller holds the message's claim), except after a crash or a deadline
 * between an import and its record. For that one window the messageId is the idempotency key,
 * and `previouslyAttempted` says an earlier call may have got through.
 */
import type { Readable } from 'node:stream';
import type { MessageDescriptor, Transfer } from '../../protocol/index.ts';

/**
 * A fetched document, bounded by API_MAX_DOCUMENT_BYTES. An ordinary one (at most 1 MiB) is
 * held in memory; a larger one arrives in a temporary file on the file system of
 * DOCUMENTS_DIR and is never held in memory whole. Every accessor works for both
 * (import-documents.ts): read it with `bytes()` or `stream()`, or take its file with `path`.
 */
export interface ImportDocument {
  contentType: string;
  /** Bytes. */
  size: number;
  /** SHA-256 of the bytes, lowercase hex. */
  sha256: string;
  /**
   * A temporary file holding the bytes exactly as received, on the file system of
   * DOCUMENTS_DIR. It is yours until import() returns: read it, stream it, or rename it into
   * place (then fsync it); it is removed after. A document held in memory is written to this
   * file when you first read `path` (a synchronous write of at most 1 MiB): prefer `bytes()` or
   * `stream()` when you do not need a file.
   */
  path: string;
  /**
   * The bytes in memory, a copy of your own: for documents known to be small, such as the
   * transaction JSON (a large one is read from its file).
   */
  bytes(): Promise<Buffer>;
  /** The bytes as a stream: from memory, or read from the file as you consume it. */
  stream(): Readable;
}

export interface ImportInput {
  /** The message's identifier, and the idempotency key of the import in your system. */
  messageId: string;
  transfer: Transfer;
  descriptor: MessageDescriptor;
  /** The core document in its own format (for example UBL XML), as fetched. */
  coreDocument: ImportDocument;
  /** The transaction JSON, bytes as received, unparsed, so nothing is lost in a round trip. */
  transaction: ImportDocument;
  /**
   * True when an earlier import() of this message started and was never recorded as done (a
   * crash, a deadline): it may have got through. Look the messageId up before importing.
   */
  previouslyAttempted: boolean;
  /**
   * Aborted at the import deadline (IMPORT_TIMEOUT_MS) or when the message's claim is lost.
   * Pass it to your calls and stop when it aborts; until import() returns, the message stays
   * claimed, so an import that ignores it still never runs twice at once.
   */
  signal: AbortSignal;
}

/**
 * What import() answers: the documents are taken (by this call or an earlier one), or the
 * message is one your system does not book, on purpose.
 */
export type ImportResult = ImportedResult | NotBookedResult;

export interface ImportedResult {
  /** `already_imported` when an earlier call took this messageId; nothing was written. */
  status: 'imported' | 'already_imported';
  /** Where the documents are: a directory, an ERP document number, a URL. */
  location: string;
}

/**
 * A message your system does not book, on purpose: a response message (an MLR or eMLR, the
 * network's acknowledgement of an invoice you sent; `descriptor.action` is
 * `MessageLevelResponse` or `EMessageLevelResponse`) when your ERP keeps no record of them.
 * The consumer marks it as delivered all the same: the service's duty for every inbound
 * message is an acknowledgement, and the message was received; mark-as-failed would report
 * a failure nobody can fix, and no acknowledgement would leave it pending, offered again by
 * every reconciliation. The consumer records `not booked: <reason>` as its import location.
 *
 * Never for an invoice or a credit note: one your system will not take is a
 * PermanentImportError, so its sender learns it was refused (the importer kit fails an
 * importer that answers `not_booked` for one).
 */
export interface NotBookedResult {
  status: 'not_booked';
  /** Why, for the operator (the log line and the admin view), e.g. `an MLR: responses are not booked`. */
  reason: string;
}

/**
 * What the consumer records as the message's import location (the admin view's
 * importLocation): where the documents are, or `not booked: <reason>`.
 */
export function recordedLocation(result: ImportResult): string {
  return result.status === 'not_booked' ? `not booked: ${result.reason}` : result.location;
}

export interface Importer {
  /**
   * Takes the documents durably. Must be idempotent on messageId (events arrive at least
   * once), and must resolve only once the documents survive a crash.
   */
  import(input: ImportInput): Promise<ImportResult>;
  /**
   * Optional: retention has deleted the consumer's record of this message (RETENTION_MESSAGE_DAYS
   * after its last news; src/consumer/retention/README.md). Remove what you keep only for the
   * consumer's sake (staging copies, a local cache); never what your system of record needs.
   * A failure is logged and not retried. The default file importer keeps its documents: they
   * are the import.
   */
  forget?(message: {
    messageId: string;
    transfer: Transfer;
    location: string | null;
  }): Promise<void>;
}

/**
 * Thrown when the documents can never be taken (the worker then calls mark-as-failed with
 * `reason`); any other error is treated as transient and retried.
 */
export class PermanentImportError extends Error {
  override readonly name = 'PermanentImportError';
  /** Sent to the service as the mark-as-failed reason: say what the sender must fix. */
  readonly reason: string;
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.reason = reason;
  }
}

/** import() did not end within IMPORT_TIMEOUT_MS. Transient: the event is retried. */
export class ImportTimeoutError extends Error {
  override readonly name = 'ImportTimeoutError';
  readonly messageId: string;
  constructor(messageId: string, timeoutMs: number, options?: { cause?: unknown }) {
    super(`the import of message ${messageId} did not end within ${timeoutMs} ms`, options);
    this.messageId = messageId;
  }
}
