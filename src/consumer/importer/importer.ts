/**
 * The importer contract: the fork point of the consumer (see README.md beside this file).
 * The worker hands it the documents of an inbound message and calls mark-as-delivered only
 * after `import()` resolves.
 */
import type { MessageDescriptor, Transfer } from '../../protocol/index.ts';

export interface ImportDocument {
  contentType: string;
  body: Buffer;
}

export interface ImportInput {
  messageId: string;
  transfer: Transfer;
  descriptor: MessageDescriptor;
  /** The core document in its own format (for example UBL XML), as fetched. */
  coreDocument: ImportDocument;
  /** The transaction JSON as received, unparsed, so nothing is lost in a round trip. */
  transaction: ImportDocument;
}

export interface ImportResult {
  /** `already_imported` when an earlier call took this messageId; nothing was written. */
  status: 'imported' | 'already_imported';
  /** Where the documents are: a directory, an ERP document number, a URL. */
  location: string;
}

export interface Importer {
  /**
   * Takes the documents durably. Must be idempotent on messageId (events arrive at least
   * once), and must resolve only once the documents survive a crash.
   */
  import(input: ImportInput): Promise<ImportResult>;
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
