/**
 * The messaging API client (docs/messaging-api.md#routes, open points decided in docs/decisions.md).
 * Each method is one call; timeouts and retries live in transport.ts, so every call gets the
 * same policy. All failures are ApiError. The calls are grouped by what they touch: one
 * message (message-calls.ts), the message list (list-calls.ts), documents (document-calls.ts)
 * and a new invoice (submit-invoice.ts).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createDocumentCalls, type DocumentCalls } from './document-calls.ts';
import { createListCalls, type ListCalls } from './list-calls.ts';
import { createMessageCalls, type MessageCalls } from './message-calls.ts';
import { type ApiClientOptions, resolveApiClientOptions } from './options.ts';
import { createSpoolFolder } from './spool-folder.ts';
import { createSubmitInvoiceCall, type SubmitInvoiceCall } from './submit-invoice.ts';
import { createTransport } from './transport.ts';

export interface ApiClient extends MessageCalls, DocumentCalls, ListCalls, SubmitInvoiceCall {
  /** Closes the keep-alive connections once the calls in flight are done. */
  close(): Promise<void>;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const resolved = resolveApiClientOptions(options, {
    sleep: (ms) => delay(ms),
    spoolDir: join(tmpdir(), 'invoicing-consumer-spool'),
  });
  const transport = createTransport(resolved);
  return {
    ...createMessageCalls(transport),
    ...createDocumentCalls({
      transport,
      spool: createSpoolFolder(resolved.spoolDir),
      maxDocumentBytes: resolved.maxDocumentBytes,
      memoryDocumentBytes: resolved.memoryDocumentBytes,
      memoryBudgetBytes: resolved.memoryBudgetBytes,
    }),
    ...createListCalls(transport),
    ...createSubmitInvoiceCall(transport),
    close: () => transport.close(),
  };
}
