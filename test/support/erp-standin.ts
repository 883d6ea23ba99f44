/**
 * A small ERP for the example HTTP importer (src/importers/erp-http.ts) to talk to: a fake,
 * named as such, standing in for a forker's real ERP, which cannot run here. It behaves the way
 * the ERPs forkers connect do, traps included:
 *
 *   PUT  /attachments/:sha256   the core document, streamed; content-addressed, so idempotent
 *                               (201 new, 200 known; 400 when the bytes do not match the name)
 *   POST /documents             books an inbound document: 201 {"documentNo"}; 409 when its
 *                               externalId is booked already (the second attempt of an import
 *                               whose reply was lost); 422 when it is refused for good (an
 *                               invoice number in `rejectInvoiceNos`, an unknown attachment)
 *   GET  /documents?externalId= 200 {"documentNo", ...} or 404
 *   POST /status-changes        a status change from the example status sink
 *                               (src/sinks/erp-http.ts), kept once per `Idempotency-Key`: 201
 *                               stored; 200 that key was stored already (nothing stored);
 *                               400 without the header or a JSON object
 *   GET  /status-changes        200 [{idempotencyKey, receivedAt, notice}, ...] in arrival order
 *   POST /outgoing-invoices     an invoice the ERP sends (a submit-invoice body), forwarded to
 *                               the consumer's POST /admin/submissions (docs/submissions.md)
 *                               with `consumerUrl` and `consumerToken`; a network failure or a
 *                               5xx is sent again, up to 3 times in all, which is safe since the
 *                               consumer keys it by invoice number. Answers with the consumer's
 *                               answer; 502 when none came; 503 without `consumerUrl`
 *   GET  /outgoing-invoices     200 [{invoiceNo, sentAt, consumerStatus, state, messageId,
 *                               submission, statusChanges}, ...] in sending order: the
 *                               consumer's last answer, the `submission:<invoiceNo>` notice, and
 *                               the status changes of its message (outbound) in arrival order
 *
 * Like the simulator, it answers programs, not web pages (src/provider/browser-guard.ts): it
 * listens on 127.0.0.1 unless told otherwise, and answers 403 to a Host that is not a loopback
 * name, an IP address or an allowed name (DNS rebinding: a page's own name re-pointed at this
 * machine) and to an Origin other than its own (a page of another site). Before issue 37 it
 * checked neither and its token was public (`erp-standin-token`), so any page the developer
 * opened could post invoices through it, which it forwards with the consumer's admin token.
 *
 * Every call needs `Authorization: Bearer <token>` (401 otherwise); the token is generated for
 * each start unless one is given. Faults make the next calls
 * answer 503, hang until the client gives up, or lose their reply after doing the work (the
 * connection is cut once the document is booked), so a test can prove what an importer does
 * then. Bodies are bounded: 1 MiB of JSON, 256 MiB of attachment, whose bytes are hashed and
 * counted, never kept.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { createBrowserRefusal } from './erp-standin-guard.ts';

export type ErpFaultMode = '503' | 'hang' | 'lose-reply';

export interface ErpFault {
  mode: ErpFaultMode;
  /** How many matching calls it takes. @default 1 */
  count?: number;
  /** Only calls whose method and path start with this, e.g. `POST /documents`. @default all */
  match?: string;
}

export interface ErpDocument {
  documentNo: string;
  externalId: string;
  documentType: string | null;
  invoiceNo: string | null;
  supplier: string | null;
  attachmentId: string;
  bookedAt: string;
}

/** A status change the ERP received (POST /status-changes), once per idempotency key. */
export interface ErpStatusChange {
  idempotencyKey: string;
  receivedAt: string;
  /** The body as posted: the StatusNotice. */
  notice: Record<string, unknown>;
}

/**
 * An invoice the ERP sent through the consumer (POST /outgoing-invoices), with what it heard
 * back. The consumer's answer may predate the outcome (state `unknown` after a lost reply); the
 * `submission:<invoiceNo>` notice is the final word, and names the message whose status changes
 * follow. Those may arrive before it (streams are independent), so they are matched on read.
 */
export interface ErpOutgoingInvoice {
  invoiceNo: string;
  /** When the ERP first sent it. */
  sentAt: string;
  /** The HTTP status of the consumer's last answer. */
  consumerStatus: number;
  /** `state` of that answer (queued, sending, unknown, submitted, refused), null if none. */
  state: string | null;
  /** The message id: the submission notice's, else the consumer's answer's; null until known. */
  messageId: string | null;
  /** The `submission:<invoiceNo>` notice, once it arrived. */
  submission: Record<string, unknown> | null;
  /** The status changes of `messageId` (outbound), in arrival order. */
  statusChanges: ErpStatusChange[];
}

export interface ErpCall {
  method: string;
  path: string;
  status: number | 'lost' | 'hung';
}

export interface ErpStandin {
  url: string;
  token: string;
  /** The token was generated for this start (none was given). */
  tokenGenerated: boolean;
  /** Booked documents, in booking order. */
  documents(): ErpDocument[];
  /** Attachments received: sha256 -> size. */
  attachments(): Map<string, number>;
  /** Status changes received, in arrival order, once per idempotency key. */
  statusChanges(): ErpStatusChange[];
  /** Invoices sent through the consumer (POST /outgoing-invoices), in sending order. */
  outgoingInvoices(): ErpOutgoingInvoice[];
  calls(): ErpCall[];
  fault(fault: ErpFault): void;
  /** Drops the faults not used up yet (an outage that is over). */
  clearFaults(): void;
  /** Everything back to empty (documents, attachments, status changes, outgoing invoices, calls, faults). */
  reset(): void;
  close(): Promise<void>;
}

export interface ErpStandinOptions {
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /**
   * Host names it answers to besides loopback names and IP addresses (and `host` when it is a
   * name), as the simulator's PROVIDER_ALLOWED_HOSTS. @default []
   */
  allowedHosts?: readonly string[];
  /** @default 64 random hex digits, new for each start */
  token?: string;
  /** Invoice numbers the ERP refuses for good (422). */
  rejectInvoiceNos?: readonly string[];
  /** The consumer's operations URL, where POST /outgoing-invoices sends invoices. */
  consumerUrl?: string;
  /**
   * The consumer's token for POST /admin/submissions: its ADMIN_SUBMIT_TOKEN, which allows that
   * and reading submissions only (ADMIN_TOKEN works too, and allows everything).
   */
  consumerToken?: string;
}

interface SentInvoice {
  invoiceNo: string;
  sentAt: string;
  consumerStatus: number;
  state: string | null;
  messageId: string | null;
}

const MAX_JSON_BYTES = 1_048_576;
const MAX_ATTACHMENT_BYTES = 256 * 1_048_576;

export async function startErpStandin(options: ErpStandinOptions = {}): Promise<ErpStandin> {
  const token = options.token ?? randomBytes(32).toString('hex');
  const host = options.host ?? '127.0.0.1';
  const refuseBrowser = createBrowserRefusal([
    ...(options.allowedHosts ?? []),
    // The name it was told to listen on is its own (an IP literal passes anyway).
    ...(isIP(host) === 0 ? [host] : []),
  ]);
  const reject = new Set(options.rejectInvoiceNos ?? []);
  let documents: ErpDocument[] = [];
  let byExternalId = new Map<string, ErpDocument>();
  let attachments = new Map<string, number>();
  let statusChanges: ErpStatusChange[] = [];
  let statusChangeKeys = new Set<string>();
  let outgoing = new Map<string, SentInvoice>();
  let calls: ErpCall[] = [];
  let faults: Array<Required<ErpFault>> = [];
  const hanging = new Set<ServerResponse>();

  const takeFault = (route: string): ErpFaultMode | undefined => {
    const fault = faults.find((f) => route.startsWith(f.match));
    if (fault === undefined) return undefined;
    fault.count -= 1;
    if (fault.count <= 0) faults = faults.filter((f) => f !== fault);
    return fault.mode;
  };

  const outgoingInvoices = (): ErpOutgoingInvoice[] =>
    [...outgoing.values()].map((sent) => {
      const submission =
        statusChanges.find((change) => change.notice.id === `submission:${sent.invoiceNo}`)
          ?.notice ?? null;
      const noticed = submission?.messageId;
      const messageId = typeof noticed === 'string' ? noticed : sent.messageId;
      return structuredClone({
        ...sent,
        messageId,
        submission,
        statusChanges:
          messageId === null
            ? []
            : statusChanges.filter(
                (change) =>
                  change.notice.kind !== 'submission' &&
                  change.notice.messageId === messageId &&
                  change.notice.transfer === 'outbound',
              ),
      });
    });

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://erp');
    const route = `${req.method} ${url.pathname}`;
    const answer = (status: number, body?: unknown) => {
      calls.push({ method: req.method ?? '', path: url.pathname, status });
      res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    const refusal = refuseBrowser(req);
    if (refusal !== undefined) {
      req.resume();
      return answer(403, { title: 'Forbidden', detail: refusal });
    }
    if (req.headers.authorization !== `Bearer ${token}`) {
      req.resume();
      return answer(401, { title: 'Unauthorized' });
    }
    const fault = takeFault(route);
    if (fault === '503') {
      req.resume();
      return answer(503, { title: 'Service Unavailable', detail: 'maintenance' });
    }
    if (fault === 'hang') {
      req.resume();
      calls.push({ method: req.method ?? '', path: url.pathname, status: 'hung' });
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    // The work is done, then the reply is lost: the connection is cut instead of answered.
    const reply =
      fault === 'lose-reply'
        ? (status: number, body?: unknown) => {
            void status;
            void body;
            calls.push({ method: req.method ?? '', path: url.pathname, status: 'lost' });
            req.socket.destroy();
          }
        : answer;
    try {
      const attachment = /^\/attachments\/([0-9a-f]{64})$/.exec(url.pathname);
      if (req.method === 'PUT' && attachment !== null) {
        const sha256 = attachment[1] as string;
        const received = await hashBody(req, MAX_ATTACHMENT_BYTES);
        if (received === undefined) return reply(413, { title: 'Attachment too large' });
        if (received.sha256 !== sha256) {
          return reply(400, { title: 'Checksum mismatch', detail: 'the bytes do not match' });
        }
        const known = attachments.has(sha256);
        attachments.set(sha256, received.size);
        return reply(known ? 200 : 201, { attachmentId: sha256 });
      }
      if (req.method === 'POST' && url.pathname === '/documents') {
        const body = await readJson(req, MAX_JSON_BYTES);
        if (body === undefined || typeof body.externalId !== 'string' || body.externalId === '') {
          return reply(400, { title: 'Bad request', detail: 'externalId is required' });
        }
        const existing = byExternalId.get(body.externalId);
        if (existing !== undefined) {
          return reply(409, {
            title: 'Duplicate',
            detail: `externalId ${body.externalId} is booked already`,
          });
        }
        const invoiceNo = typeof body.invoiceNo === 'string' ? body.invoiceNo : null;
        if (invoiceNo !== null && reject.has(invoiceNo)) {
          return reply(422, {
            title: 'Refused',
            detail: `invoice ${invoiceNo} is not one we accept (unknown order)`,
          });
        }
        if (typeof body.attachmentId !== 'string' || !attachments.has(body.attachmentId)) {
          return reply(422, { title: 'Refused', detail: 'the attachment was never uploaded' });
        }
        const document: ErpDocument = {
          documentNo: `PI-${String(documents.length + 1).padStart(6, '0')}`,
          externalId: body.externalId,
          documentType: typeof body.documentType === 'string' ? body.documentType : null,
          invoiceNo,
          supplier: typeof body.supplier === 'string' ? body.supplier : null,
          attachmentId: body.attachmentId,
          bookedAt: new Date().toISOString(),
        };
        documents.push(document);
        byExternalId.set(document.externalId, document);
        return reply(201, { documentNo: document.documentNo });
      }
      if (req.method === 'POST' && url.pathname === '/status-changes') {
        const key = req.headers['idempotency-key'];
        if (typeof key !== 'string' || key.trim() === '') {
          req.resume();
          return reply(400, { title: 'Bad request', detail: 'Idempotency-Key is required' });
        }
        const body = await readJson(req, MAX_JSON_BYTES);
        if (body === undefined) {
          return reply(400, { title: 'Bad request', detail: 'the body is not a JSON object' });
        }
        if (statusChangeKeys.has(key)) return reply(200, { idempotencyKey: key, stored: false });
        statusChangeKeys.add(key);
        statusChanges.push({
          idempotencyKey: key,
          receivedAt: new Date().toISOString(),
          notice: body,
        });
        return reply(201, { idempotencyKey: key, stored: true });
      }
      if (req.method === 'GET' && url.pathname === '/status-changes') {
        req.resume();
        return reply(200, statusChanges);
      }
      if (req.method === 'POST' && url.pathname === '/outgoing-invoices') {
        const body = await readJson(req, MAX_JSON_BYTES);
        if (body === undefined) {
          return reply(400, { title: 'Bad request', detail: 'the body is not a JSON object' });
        }
        if (options.consumerUrl === undefined) {
          return reply(503, {
            title: 'No consumer',
            detail: 'start the stand-in with consumerUrl (ERP_STANDIN_CONSUMER_URL)',
          });
        }
        const answer = await submitThroughConsumer(
          body,
          options.consumerUrl,
          options.consumerToken,
        );
        if (answer === undefined) {
          return reply(502, { title: 'Bad gateway', detail: 'the consumer did not answer' });
        }
        const invoiceNo = (body.invoice as { invoiceNo?: unknown } | undefined)?.invoiceNo;
        if (typeof invoiceNo === 'string') {
          const view = answer.body as { state?: unknown; messageId?: unknown } | undefined;
          // Sent again: the same place in the list, the consumer's latest answer.
          outgoing.set(invoiceNo, {
            invoiceNo,
            sentAt: outgoing.get(invoiceNo)?.sentAt ?? new Date().toISOString(),
            consumerStatus: answer.status,
            state: typeof view?.state === 'string' ? view.state : null,
            messageId: typeof view?.messageId === 'string' ? view.messageId : null,
          });
        }
        return reply(answer.status, answer.body);
      }
      if (req.method === 'GET' && url.pathname === '/outgoing-invoices') {
        req.resume();
        return reply(200, outgoingInvoices());
      }
      if (req.method === 'GET' && url.pathname === '/documents') {
        req.resume();
        const found = byExternalId.get(url.searchParams.get('externalId') ?? '');
        return found === undefined ? reply(404, { title: 'Not Found' }) : reply(200, found);
      }
      req.resume();
      return reply(404, { title: 'Not Found' });
    } catch (error) {
      if (!res.headersSent && !res.destroyed) reply(400, { detail: String(error) });
    }
  });
  server.listen(options.port ?? 0, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host}:${port}`,
    token,
    tokenGenerated: options.token === undefined,
    documents: () => [...documents],
    attachments: () => new Map(attachments),
    statusChanges: () => structuredClone(statusChanges),
    outgoingInvoices,
    calls: () => [...calls],
    fault(fault) {
      faults.push({ count: 1, match: '', ...fault });
    },
    clearFaults() {
      faults = [];
    },
    reset() {
      documents = [];
      byExternalId = new Map();
      attachments = new Map();
      statusChanges = [];
      statusChangeKeys = new Set();
      outgoing = new Map();
      calls = [];
      faults = [];
    },
    close() {
      for (const res of hanging) res.socket?.destroy();
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

const CONSUMER_ATTEMPTS = 3;

/**
 * POST /admin/submissions of the consumer, sent again after a network failure or a 5xx: the
 * consumer keys the invoice by its number, so a second POST of the same body is answered 200
 * with the same submission, never a second invoice. Undefined when no answer came.
 */
async function submitThroughConsumer(
  body: Record<string, unknown>,
  consumerUrl: string,
  consumerToken: string | undefined,
): Promise<{ status: number; body: unknown } | undefined> {
  let last: { status: number; body: unknown } | undefined;
  for (let attempt = 1; attempt <= CONSUMER_ATTEMPTS; attempt += 1) {
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
    try {
      const res = await fetch(`${consumerUrl.replace(/\/+$/, '')}/admin/submissions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(consumerToken === undefined ? {} : { authorization: `Bearer ${consumerToken}` }),
        },
        body: JSON.stringify(body),
        // The consumer waits up to 2 s for the outbox before it answers.
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON (a proxy's error page): passed on as text.
      }
      last = { status: res.status, body: parsed };
      if (res.status < 500) return last;
    } catch {
      // No answer (refused, reset, timed out): the next attempt is as safe as this one.
    }
  }
  return last;
}

/** The body's sha256 and size, or undefined past `limit` bytes (then the request is cut). */
async function hashBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ sha256: string; size: number } | undefined> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.destroy();
      return undefined;
    }
    hash.update(chunk as Buffer);
  }
  return { sha256: hash.digest('hex'), size };
}

async function readJson(
  req: IncomingMessage,
  limit: number,
): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    const value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
