/**
 * The calls that fetch a document: the core document in its own format, and a transaction's
 * JSON. A document of at most `memoryDocumentBytes` (1 MiB by default: every ordinary invoice)
 * is kept in memory, within the client's memory budget; a larger one goes to a file of the
 * spool folder (spool-folder.ts), never into memory whole (read-document.ts). The caller
 * discards each document once it is done with it.
 */
import { DOCUMENT_JSON_LIMITS, transactionPath } from '../../protocol/index.ts';
import { createMemoryBudget } from './memory-budget.ts';
import type { ReceivedDocument } from './read-document.ts';
import { type ApiRequest, checkedMessageId, type ResponseSink, segment } from './request.ts';
import { removeIfLeft, type SpoolFolder } from './spool-folder.ts';
import type { Transport } from './transport.ts';

/** A fetched document: its bytes in memory, or a file of the spool folder. */
export interface FetchedDocument {
  /** The Content-Type the service sent, `application/octet-stream` when it sent none. */
  contentType: string;
  size: number;
  /** SHA-256 of the bytes, lowercase hex, computed while they arrived. */
  sha256: string;
  /** The bytes exactly as received, when the document was kept in memory; else undefined. */
  bytes: Buffer | undefined;
  /**
   * The spool file holding the bytes exactly as received. A document kept in memory is written
   * to one on the first call (synchronously, at most `memoryDocumentBytes`), for a reader that
   * wants a file; the caller may move the file away. Throws a SpoolWriteError when it cannot
   * be written.
   */
  file(): string;
  /**
   * Done with it: its spool file is removed unless it was moved away, and its bytes go back to
   * the client's memory budget. Call it once the import is over, whatever its outcome.
   */
  discard(): Promise<void>;
}

export interface DocumentCalls {
  /**
   * GET /messages/:mid/documents/core: the core document in its own format. A document over
   * `maxDocumentBytes` is an ApiError (not retryable) and leaves no file.
   */
  getCoreDocument(messageId: string): Promise<FetchedDocument>;
  /**
   * GET /transactions/<kebab-case action>?messageId=: the message's JSON, bytes as received,
   * kept unparsed for the importer. Throws TypeError when `action` is not a transaction name.
   */
  getTransaction(action: string, messageId: string): Promise<FetchedDocument>;
}

export function createDocumentCalls(deps: {
  transport: Transport;
  spool: SpoolFolder;
  maxDocumentBytes: number;
  memoryDocumentBytes: number;
  memoryBudgetBytes: number;
}): DocumentCalls {
  const { transport, spool, maxDocumentBytes, memoryDocumentBytes: memoryBytes } = deps;
  const memory = createMemoryBudget(deps.memoryBudgetBytes);

  async function download(
    request: Omit<ApiRequest, 'sink'>,
    shape?: Extract<ResponseSink, { to: 'document' }>['shape'],
  ): Promise<FetchedDocument> {
    const response = await transport.send({
      ...request,
      sink: {
        to: 'document',
        // Asked for only when the document goes to a file: an ordinary one never touches it.
        spoolFile: () => spool.newFile(),
        maxBytes: maxDocumentBytes,
        limitName: 'API_MAX_DOCUMENT_BYTES',
        memoryBytes,
        memory,
        ...(shape === undefined ? {} : { shape }),
      },
    });
    const received = response.document;
    if (received === undefined) throw new Error('the transport read no document');
    return fetchedDocument(response.contentType ?? 'application/octet-stream', received);
  }

  function fetchedDocument(contentType: string, received: ReceivedDocument): FetchedDocument {
    const { size, sha256, bytes } = received;
    let path = received.path;
    let discarded = false;
    return {
      contentType,
      size,
      sha256,
      bytes,
      file() {
        if (discarded) throw new Error('the fetched document was discarded');
        path ??= spool.writeFileNow(bytes ?? Buffer.alloc(0));
        return path;
      },
      async discard() {
        if (discarded) return;
        discarded = true;
        if (bytes !== undefined) memory.give(size);
        if (path !== undefined) await removeIfLeft(path);
      },
    };
  }

  return {
    getCoreDocument: async (messageId) =>
      download({
        method: 'GET',
        operation: 'core document',
        path: `/messages/${segment(messageId)}/documents/core`,
        retry: 'idempotent',
      }),

    getTransaction: async (action, messageId) =>
      download(
        {
          method: 'GET',
          operation: 'transaction',
          path: transactionPath(action),
          // A query value is encoded safely anyway; refused all the same, like in a path.
          query: { messageId: checkedMessageId(messageId, 'GET') },
          retry: 'idempotent',
        },
        // JSON the importer parses whole: its shape is checked as it arrives, so a bomb is
        // refused here (a non-retryable ApiError) and never reaches an importer.
        DOCUMENT_JSON_LIMITS,
      ),
  };
}
