/**
 * A hostile or careless ERP for the redaction tests: a real HTTP server on a free loopback port
 * that speaks the example modules' API (src/importers/erp-http.ts, src/sinks/erp-http.ts) and
 * puts the request's Authorization header into its error answers in every form a framework
 * might echo it in (echoForms). What it answers a booking is chosen by the invoice number:
 *
 *   ECHO-422      422 problem JSON, the echo as its detail (a refusal: mark-as-failed)
 *   ECHO-401      401 text, the echo (transient: importError, retried)
 *   ECHO-503      503 with the echo inside a JSON body quoted raw (transient)
 *   LOC-CONTROL   201, a documentNo full of escape codes and line breaks
 *   LOC-HUGE      201, a documentNo of 60,000 characters
 *
 * Every status change posted to it is answered 500 with the echo (the sink's lastError).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { closeServer, listenOnLoopback } from '../../support/loopback-server.ts';

/** The documentNo LOC-CONTROL gets: a colour, a bell, line breaks, a NUL. */
export const CONTROL_DOCUMENT_NO = '\u001b[31mERP-2026\u001b[0m\r\n\u0007line two\u0000';
/** What the consumer keeps of it. */
export const CONTROL_DOCUMENT_NO_SHOWN = 'ERP-2026 line two';
export const HUGE_DOCUMENT_NO = `ERP-${'9'.repeat(60_000)}`;

export interface EchoingErp {
  url: string;
  /** The Authorization headers it received, by path. */
  authorizations(): Array<{ path: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

/** The forms of `authorization` the ERP echoes, by name. */
export function echoForms(authorization: string): Record<string, string> {
  return {
    plain: authorization,
    upper: authorization.toUpperCase(),
    base64: Buffer.from(authorization).toString('base64'),
    base64url: Buffer.from(`Authorization: ${authorization}`).toString('base64url'),
    percent: encodeURIComponent(authorization),
  };
}

/** The echo as one line of text. */
export function echo(authorization: string | undefined): string {
  const forms = echoForms(authorization ?? '');
  return `invalid credential; ${Object.entries(forms)
    .map(([name, form]) => `${name}=${form}`)
    .join('; ')}`;
}

/**
 * The pieces (6 characters, lower-cased) of every echoed form of `Bearer <token>` that depend
 * on the token: those not found in the same form of another token of its length. A text holding
 * none of them holds no part of the token that could be read back, in any form echoed.
 */
export function tokenPieces(token: string): string[] {
  const echoed = Object.values(echoForms(`Bearer ${token}`));
  const other = Object.values(echoForms(`Bearer ${'Q'.repeat(token.length)}`));
  const pieces = new Set<string>();
  echoed.forEach((form, i) => {
    const lower = form.toLowerCase();
    const unrelated = (other[i] as string).toLowerCase();
    for (let at = 0; at + 6 <= lower.length; at++) {
      const piece = lower.slice(at, at + 6);
      if (!unrelated.includes(piece)) pieces.add(piece);
    }
  });
  return [...pieces];
}

/** The pieces of `token` (tokenPieces) found in `text`, case-insensitively. */
export function leakedPieces(text: string, token: string): string[] {
  const lower = text.toLowerCase();
  return tokenPieces(token).filter((piece) => lower.includes(piece));
}

export async function startEchoingErp(): Promise<EchoingErp> {
  const seen: Array<{ path: string; authorization: string | undefined }> = [];
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] as string;
    seen.push({ path, authorization: req.headers.authorization });
    const echoed = echo(req.headers.authorization);
    const send = (status: number, type: string, text: string) => {
      res.writeHead(status, { 'content-type': type });
      res.end(text);
    };
    if (req.method === 'PUT' && path.startsWith('/attachments/')) {
      return send(201, 'application/json', '{}');
    }
    if (req.method === 'POST' && path === '/status-changes') {
      return send(500, 'text/plain', `status change refused: ${echoed}`);
    }
    if (req.method !== 'POST' || path !== '/documents') return send(404, 'text/plain', 'no route');
    const invoiceNo = (JSON.parse(body) as { invoiceNo?: string }).invoiceNo;
    const json = (status: number, value: unknown) =>
      send(status, 'application/json', JSON.stringify(value));
    switch (invoiceNo) {
      case 'ECHO-422':
        return json(422, { title: 'Unprocessable', status: 422, detail: echoed });
      case 'ECHO-401':
        return send(401, 'text/plain', echoed);
      case 'ECHO-503':
        return json(503, {
          error: 'maintenance',
          request: { headers: echoForms(req.headers.authorization ?? '') },
        });
      case 'LOC-CONTROL':
        return json(201, { documentNo: CONTROL_DOCUMENT_NO });
      case 'LOC-HUGE':
        return json(201, { documentNo: HUGE_DOCUMENT_NO });
      default:
        return json(201, { documentNo: `ERP-${invoiceNo}` });
    }
  });
  const url = await listenOnLoopback(server);
  return { url, authorizations: () => [...seen], close: () => closeServer(server) };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
