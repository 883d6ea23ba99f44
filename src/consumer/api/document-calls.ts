/**
 * The calls that fetch a document: the core document in its own format, and a transaction's
 * JSON. Each goes to a file of the spool folder (spool-folder.ts), never into memory whole, and
 * the caller moves or removes it.
 */
import { DOCUMENT_JSON_LIMITS, transactionPath } from '../../protocol/index.ts';
import { type ApiRequest, checkedMessageId, type ResponseSink, segment } from './request.ts';
import type { SpoolFolder } from './spool-folder.ts';
import type { Transport } from './transport.ts';

/** A fetched document, in a file of the spool folder (never held in memory whole). */
export interface FetchedDocument {
  /** The Content-Type the service sent, `application/octet-stream` when it sent none. */
  contentType: string;
  /** The file holding the bytes exactly as received; the caller moves or removes it. */
  path: string;
  size: number;
  /** SHA-256 of the bytes, lowercase hex, computed while they arrived. */
  sha256: string;
}

export interface DocumentCalls {
  /**
   * GET /messages/:mid/documents/core: the core document in its own format, in a spool file.
   * A document over `maxDocumentBytes` is an ApiError (not retryable) and leaves no file.
   */
  getCoreDocument(messageId: string): Promise<FetchedDocument>;
  /**
   * GET /transactions/<kebab-case action>?messageId=: the message's JSON, bytes as received in
   * a spool file, kept unparsed for the importer. Throws TypeError when `action` is not a
   * transaction name.
   */
  getTransaction(action: string, messageId: string): Promise<FetchedDocument>;
}

export function createDocumentCalls(deps: {
  transport: Transport;
  spool: SpoolFolder;
  maxDocumentBytes: number;
}): DocumentCalls {
  const { transport, spool, maxDocumentBytes } = deps;

  async function download(
    request: Omit<ApiRequest, 'sink'>,
    shape?: Extract<ResponseSink, { to: 'file' }>['shape'],
  ): Promise<FetchedDocument> {
    const path = await spool.newFile();
    const response = await transport.send({
      ...request,
      sink: {
        to: 'file',
        path,
        maxBytes: maxDocumentBytes,
        limitName: 'API_MAX_DOCUMENT_BYTES',
        ...(shape === undefined ? {} : { shape }),
      },
    });
    const file = response.file;
    if (file === undefined) throw new Error('the transport wrote no file for a document');
    return { contentType: response.contentType ?? 'application/octet-stream', ...file };
  }

  return {
    getCoreDocument: async (messageId) =>
      download({
        method: 'GET',
        path: `/messages/${segment(messageId)}/documents/core`,
        retry: 'idempotent',
      }),

    getTransaction: async (action, messageId) =>
      download(
        {
          method: 'GET',
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
