/**
 * IMPORTER_MODULE=erp-http: the worked example of docs/forking.md. Each inbound message is
 * booked in an ERP through its HTTP API, in two idempotent steps:
 *
 *   1. PUT  {ERP_BASE_URL}/attachments/<sha256>   the core document, streamed. Named by its
 *      checksum, so sending it twice stores it once.
 *   2. POST {ERP_BASE_URL}/documents              the booking, with `externalId` = messageId,
 *      which the ERP keeps unique: 201 {"documentNo"} booked; 409 booked already; 422 refused.
 *
 * The trap every ERP integration meets: an import whose reply was lost (a timeout, a cut
 * connection) is retried, and the ERP answers the second POST 409, because the first one got
 * through. That is this importer's own earlier import succeeding, so it looks the booking up
 * and answers `already_imported`; treating the 409 as a refusal would tell the sender their
 * invoice was rejected after the ERP booked it. Only a 422 (the ERP refuses the document for
 * good) is a PermanentImportError; everything else (5xx, 429, 401/403, a timeout, a network
 * error) is transient and retried by the consumer.
 *
 * The ERP stand-in in test/support/erp-standin.ts speaks this API (`npm run erp-standin`).
 */
import type { Readable } from 'node:stream';
import { request } from 'undici';
import {
  defineImporter,
  type Importer,
  type ImportInput,
  PermanentImportError,
  printableText,
  readBounded,
  z,
} from '../consumer/importer/index.ts';

const settings = z.object({
  /** The ERP's API, e.g. https://erp.example.com/api. */
  ERP_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  /** Bearer token for the ERP's API. */
  ERP_TOKEN: z.string().min(1),
  /** Deadline of each call to the ERP, in ms. @default 10000 */
  ERP_TIMEOUT_MS: z.coerce
    .number({ error: 'must be an integer of milliseconds' })
    .int()
    .min(1)
    .max(600_000)
    .default(10_000),
});

export type ErpHttpSettings = z.output<typeof settings>;

/** An ERP answer that is not a success; transient unless the importer says otherwise. */
export class ErpError extends Error {
  override readonly name = 'ErpError';
  readonly status: number;
  readonly body: string;
  constructor(what: string, status: number, body: string) {
    // The ERP's text is stored (importError) and logged: printable and bounded, whatever it is.
    const shown = printableText(body);
    super(`${what}: the ERP answered ${status}${shown === '' ? '' : `: ${shown}`}`);
    this.status = status;
    this.body = shown;
  }
}

/** The start of an answer's body: enough for an error message, bounded whatever is sent. */
const MAX_ANSWER_BYTES = 64 * 1024;

export function createErpHttpImporter(options: ErpHttpSettings): Importer {
  const base = options.ERP_BASE_URL.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${options.ERP_TOKEN}` };
  const timeouts = { headersTimeout: options.ERP_TIMEOUT_MS, bodyTimeout: options.ERP_TIMEOUT_MS };

  async function call(
    method: 'GET' | 'PUT' | 'POST',
    path: string,
    init: { body?: Readable | string; contentType?: string; signal: AbortSignal },
  ): Promise<{ status: number; text: string }> {
    const answer = await request(`${base}${path}`, {
      method,
      headers: {
        ...headers,
        ...(init.contentType === undefined ? {} : { 'content-type': init.contentType }),
      },
      ...(init.body === undefined ? {} : { body: init.body }),
      signal: init.signal,
      ...timeouts,
    });
    return { status: answer.statusCode, text: await readBounded(answer.body, MAX_ANSWER_BYTES) };
  }

  /** The booking of a message the ERP holds already (after a 409). */
  async function findBooking(messageId: string, signal: AbortSignal): Promise<string> {
    const found = await call('GET', `/documents?externalId=${encodeURIComponent(messageId)}`, {
      signal,
    });
    if (found.status !== 200)
      throw new ErpError('looking up a booked document', found.status, found.text);
    return documentNo(found.text);
  }

  return {
    async import(input: ImportInput) {
      const data = parseTransaction(await input.transaction.bytes());
      const core = input.coreDocument;
      const uploaded = await call('PUT', `/attachments/${core.sha256}`, {
        body: core.stream(),
        contentType: core.contentType,
        signal: input.signal,
      });
      if (uploaded.status === 413) {
        throw new PermanentImportError(
          `the ERP refuses a core document of ${core.size} bytes (too large for it)`,
        );
      }
      if (uploaded.status !== 200 && uploaded.status !== 201) {
        throw new ErpError('uploading the core document', uploaded.status, uploaded.text);
      }
      const booked = await call('POST', '/documents', {
        body: JSON.stringify({
          externalId: input.messageId,
          documentType: input.descriptor.documents?.find((d) => d.attachmentType === 'Core')?.name,
          documentNo: input.descriptor.documentNo,
          invoiceNo: data.invoice?.invoiceNo,
          supplier: input.descriptor.originParty?.identifier,
          attachmentId: core.sha256,
          data,
        }),
        contentType: 'application/json',
        signal: input.signal,
      });
      if (booked.status === 201) return { status: 'imported', location: documentNo(booked.text) };
      if (booked.status === 409) {
        // Our own earlier attempt got through (its reply was lost): not a refusal.
        return {
          status: 'already_imported',
          location: await findBooking(input.messageId, input.signal),
        };
      }
      if (booked.status === 422) {
        throw new PermanentImportError(`the ERP refused the document: ${detail(booked.text)}`);
      }
      throw new ErpError('booking the document', booked.status, booked.text);
    },
  };
}

export default defineImporter({
  settings,
  // Hidden by the consumer in every error, location and log line of this importer (an ERP may
  // echo the Authorization header in a refusal), as is ERP_BASE_URL's user:password.
  secrets: ['ERP_TOKEN'],
  describe: (s) => `documents are booked in the ERP at ${s.ERP_BASE_URL} (POST /documents)`,
  create: ({ settings: s }) => createErpHttpImporter(s),
});

interface TransactionData {
  invoice?: { invoiceNo?: unknown };
}

function parseTransaction(bytes: Buffer): TransactionData {
  try {
    const value = JSON.parse(bytes.toString('utf8'));
    if (typeof value === 'object' && value !== null) return value as TransactionData;
  } catch {
    // reported below
  }
  throw new PermanentImportError('the transaction data is not a JSON object');
}

function documentNo(text: string): string {
  const value = safeJson(text) as { documentNo?: unknown } | undefined;
  if (typeof value?.documentNo !== 'string' || value.documentNo === '') {
    throw new Error(`the ERP's answer has no documentNo: ${printableText(text, 200)}`);
  }
  return value.documentNo;
}

function detail(text: string): string {
  const value = safeJson(text) as { detail?: unknown; title?: unknown } | undefined;
  const said = value?.detail ?? value?.title;
  // Sent to the service as the mark-as-failed reason and stored: printable and bounded.
  return printableText(typeof said === 'string' ? said : text);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
