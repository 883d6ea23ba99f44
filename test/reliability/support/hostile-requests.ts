/**
 * Random webhook requests, hostile and valid, for fuzzing the ingress over real HTTP: each is
 * a description (what kind of signature, body, framing, headers), its bytes on the wire, and
 * the answer docs/how-it-works.md promises for it. The request's class decides the answer; the
 * checks run in the documented order (signature header, encoding, declared length, body,
 * signature, credential, JSON, envelope), so the first failing one names the status.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { computeSignature } from '../../../src/protocol/index.ts';

export const FUZZ_SECRET = 'whsec_reliability_fuzz_0123456789';
export const FUZZ_CREDENTIAL_TOKEN = 'fuzz-credential-token-0123456789';
/** Small, so that bodies over it are cheap to send. */
export const FUZZ_MAX_BODY_BYTES = 32 * 1024;

type SignatureKind =
  | 'valid'
  | 'other-secret'
  | 'forged'
  | 'stale'
  | 'future'
  | 'missing'
  | 'garbage';
type BodyKind =
  | 'envelope'
  | 'broken-envelope'
  | 'json-not-object'
  | 'not-json'
  | 'invalid-utf8'
  | 'bom'
  | 'empty'
  | 'oversized';
/** How the body is framed; `declared-huge` announces 10 MB and sends a little. */
type Framing = 'length' | 'chunked' | 'declared-huge';
/** Request heads Node's HTTP parser refuses itself (400, or 431 for a huge header). */
const BROKEN_HEAD_LINES = [
  'X-Control: a\u0001b',
  'X-Nul: a\u0000b',
  'X-Del: a\u007fb',
  'Bad Name: value',
  'X-Space-Before-Colon : value',
  'X-Folded: a\r\n folded',
  'Content-Length: -1',
  'Content-Length: +5',
  'Content-Length: 3, 3',
  'Transfer-Encoding: gzip',
  `X-Huge: ${'h'.repeat(20_000)}`,
] as const;

export interface HostileRequest {
  method: string;
  /** `/webhooks` in some spelling express routes to it, or another path. */
  path: string;
  signature: SignatureKind;
  credential: 'right' | 'wrong' | 'missing';
  encoding: string | undefined;
  contentType: string | undefined;
  /** Harmless random headers, including hostile routing headers. */
  headers: [string, string][];
  /** A header line Node's parser refuses, or none. */
  brokenHead: string | undefined;
  /** Sent as HTTP/1.0 (no Host needed) or HTTP/1.1; `missing-host` is 1.1 without one. */
  version: '1.1' | '1.0' | 'missing-host';
  expectContinue: boolean;
  body: BodyKind;
  framing: Framing;
  /** The envelope of an `envelope` or `broken-envelope` body, its eventId made unique. */
  envelope: Record<string, unknown>;
  /** Which field a broken envelope breaks, and how. */
  breakage: [string, unknown];
  /** Fraction of the bytes sent before the connection is cut; undefined: sent whole. */
  abortAt: number | undefined;
}

const WEBHOOK_PATHS = ['/webhooks', '/webhooks/', '/webhooks?source=fuzz', '/WEBHOOKS'];
const OTHER_PATHS = ['/', '/webhook', '/webhooks/extra', '/admin/events', '/%zz', '/healthz'];
const TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
/** Headers the request model sets itself: random ones must not change its class. */
const RESERVED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'content-encoding',
  'svc-webhook-signature',
  'authorization',
  'connection',
  'upgrade',
  'expect',
]);

const headerName = fc
  .string({ unit: fc.constantFrom(...TOKEN_CHARS), minLength: 1, maxLength: 24 })
  .filter((name) => !RESERVED.has(name.toLowerCase()));
/** Visible ASCII, spaces and tabs inside, and obs-text (bytes 0x80-0xff), as Node allows. */
const headerValue = fc
  .string({
    unit: fc.oneof(
      fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
      fc.constantFrom(' ', '\t'),
      fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
    ),
    maxLength: 300,
  })
  .map((value) => value.trim());

const envelope = fc.record({
  eventId: fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 80, unit: 'grapheme' })),
  action: fc.oneof(
    fc.constantFrom(
      'created',
      'deliveryNotified',
      'messageStatusChanged',
      'taxReportingStatusChanged',
      'lifecycleStatusChanged',
    ),
    fc.string({ minLength: 1, maxLength: 40 }),
  ),
  transfer: fc.constantFrom('inbound', 'outbound'),
  occurredAt: fc
    .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  test: fc.boolean(),
  party: fc.string({ minLength: 1, maxLength: 40 }),
  messageId: fc.uuid(),
  data: fc.jsonValue({ maxDepth: 3 }),
});

const breakage = fc.oneof(
  fc.tuple(
    fc.constantFrom('eventId', 'action', 'transfer', 'occurredAt', 'party', 'messageId'),
    fc.constantFrom(undefined, null, 0, 1.5, true, [], {}, ''),
  ),
  fc.tuple(fc.constant('transfer'), fc.constantFrom('sideways', 'INBOUND', 'in')),
  fc.tuple(fc.constant('occurredAt'), fc.constantFrom('yesterday', '2026-13-01T00:00:00Z', '1')),
  fc.tuple(fc.constant('messageId'), fc.constantFrom('..', '.', 'a/b', 'a\\b', 'a\u0000b')),
  fc.tuple(fc.constant('test'), fc.constantFrom('true', 1, null, [])),
);

export const hostileRequest: fc.Arbitrary<HostileRequest> = fc.record({
  method: fc.oneof(
    { weight: 6, arbitrary: fc.constant('POST') },
    {
      weight: 2,
      arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND'),
    },
    { weight: 1, arbitrary: fc.constantFrom('FOO', 'post', 'PRI', 'CONNECT') },
  ),
  path: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...WEBHOOK_PATHS) },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_PATHS) },
  ),
  signature: fc.oneof(
    { weight: 5, arbitrary: fc.constant<SignatureKind>('valid') },
    {
      weight: 4,
      arbitrary: fc.constantFrom<SignatureKind>(
        'other-secret',
        'forged',
        'stale',
        'future',
        'missing',
        'garbage',
      ),
    },
  ),
  credential: fc.oneof(
    { weight: 6, arbitrary: fc.constant<'right'>('right') },
    { weight: 1, arbitrary: fc.constantFrom<'wrong' | 'missing'>('wrong', 'missing') },
  ),
  encoding: fc.oneof(
    { weight: 8, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom('identity', 'gzip', 'deflate', 'br', 'x-unknown') },
  ),
  contentType: fc.constantFrom(
    undefined,
    'application/json; charset=utf-8',
    'application/json',
    'text/plain',
    'multipart/form-data; boundary=xyz',
    'application/x-www-form-urlencoded',
    'application/json; charset=latin1',
    '*/*',
  ),
  headers: fc
    .array(fc.tuple(headerName, headerValue), { maxLength: 4 })
    .chain((random) =>
      fc
        .array(
          fc.tuple(
            fc.constantFrom('svc-webhook-event-id', 'svc-webhook-action', 'svc-webhook-transfer'),
            headerValue,
          ),
          { maxLength: 2 },
        )
        .map((routing) => [...random, ...routing]),
    ),
  brokenHead: fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom(...BROKEN_HEAD_LINES) },
  ),
  version: fc.oneof(
    { weight: 12, arbitrary: fc.constant<'1.1'>('1.1') },
    { weight: 1, arbitrary: fc.constantFrom<'1.0' | 'missing-host'>('1.0', 'missing-host') },
  ),
  expectContinue: fc.boolean(),
  body: fc.oneof(
    { weight: 10, arbitrary: fc.constant<BodyKind>('envelope') },
    {
      weight: 6,
      arbitrary: fc.constantFrom<BodyKind>(
        'broken-envelope',
        'json-not-object',
        'not-json',
        'invalid-utf8',
        'bom',
        'empty',
        'oversized',
      ),
    },
  ),
  framing: fc.oneof(
    { weight: 6, arbitrary: fc.constant<Framing>('length') },
    { weight: 3, arbitrary: fc.constant<Framing>('chunked') },
    { weight: 1, arbitrary: fc.constant<Framing>('declared-huge') },
  ),
  envelope,
  breakage,
  abortAt: fc.oneof(
    { weight: 9, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.double({ min: 0.05, max: 0.95, noNaN: true }) },
  ),
});

const INVALID_MARK = '@@not-utf-8@@';

/** The body bytes of a request, before framing. */
export function bodyBytes(request: HostileRequest): Buffer {
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  switch (request.body) {
    case 'envelope':
      return json(request.envelope);
    case 'broken-envelope': {
      const [field, value] = request.breakage;
      const broken: Record<string, unknown> = { ...request.envelope };
      if (value === undefined) delete broken[field];
      else broken[field] = value;
      return json(broken);
    }
    case 'json-not-object':
      return json([request.envelope]);
    case 'not-json':
      return Buffer.from(`eventId=${String(request.envelope.eventId)}&action=created`);
    case 'invalid-utf8': {
      // A valid envelope but for one byte that is no UTF-8 (0xff), inside the party string.
      const text = Buffer.from(JSON.stringify({ ...request.envelope, party: INVALID_MARK }));
      const at = text.indexOf(INVALID_MARK);
      return Buffer.concat([
        text.subarray(0, at),
        Buffer.from([0x70, 0xff, 0x71]),
        text.subarray(at + INVALID_MARK.length),
      ]);
    }
    case 'bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json(request.envelope)]);
    case 'empty':
      return Buffer.alloc(0);
    case 'oversized':
      return json({ ...request.envelope, padding: 'x'.repeat(FUZZ_MAX_BODY_BYTES) });
  }
}

/** The request as bytes on the wire. */
export function encode(request: HostileRequest, body: Buffer, nowMs: number): Buffer {
  const t = Math.floor(nowMs / 1000);
  const sign = (secret: string, at: number) => `t=${at},v0=${computeSignature(secret, at, body)}`;
  const signature: Record<SignatureKind, string | undefined> = {
    valid: sign(FUZZ_SECRET, t),
    'other-secret': sign('whsec_someone_else_entirely_000', t),
    forged: `t=${t},v0=${'0'.repeat(64)}`,
    stale: sign(FUZZ_SECRET, t - 3600),
    future: sign(FUZZ_SECRET, t + 3600),
    missing: undefined,
    garbage: `t=${t},v0=${'z'.repeat(64)}`,
  };
  const lines = [
    `${request.method} ${request.path} HTTP/${request.version === '1.0' ? '1.0' : '1.1'}`,
  ];
  if (request.version === '1.1') lines.push('Host: 127.0.0.1');
  const sig = signature[request.signature];
  if (sig !== undefined) lines.push(`SVC-Webhook-Signature: ${sig}`);
  if (request.credential === 'right') lines.push(`Authorization: Bearer ${FUZZ_CREDENTIAL_TOKEN}`);
  if (request.credential === 'wrong') lines.push('Authorization: Bearer not-the-token');
  if (request.encoding !== undefined) lines.push(`Content-Encoding: ${request.encoding}`);
  if (request.contentType !== undefined) lines.push(`Content-Type: ${request.contentType}`);
  if (request.expectContinue) lines.push('Expect: 100-continue');
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (request.brokenHead !== undefined) lines.push(request.brokenHead);
  let payload = body;
  if (request.framing === 'chunked') {
    lines.push('Transfer-Encoding: chunked');
    const chunks: Buffer[] = [];
    for (let i = 0; i < body.length; i += 1000) {
      const part = body.subarray(i, i + 1000);
      chunks.push(Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n'));
    }
    payload = Buffer.concat([...chunks, Buffer.from('0\r\n\r\n')]);
  } else if (request.framing === 'declared-huge') {
    lines.push('Content-Length: 10000000');
  } else {
    lines.push(`Content-Length: ${body.length}`);
  }
  lines.push('Connection: close');
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
}

/**
 * What how-it-works.md promises for a request of this class: a status, or `closed` (CONNECT: Node
 * closes the connection of a method no server here tunnels).
 */
export function expectedStatus(request: HostileRequest, body: Buffer): number | 'closed' {
  // Node's parser first, in its order: the request line, the headers, then what it does
  // with a complete head (CONNECT is closed: nothing here tunnels; HTTP/1.1 needs a Host).
  if (!/^[A-Z]+$/.test(request.method) || ['FOO', 'PRI'].includes(request.method)) return 400;
  if (request.brokenHead?.startsWith('X-Huge')) return 431;
  // With chunked framing, `Transfer-Encoding: gzip` joins it as `gzip, chunked`: valid framing
  // (Node decodes only the chunks; nothing is ever inflated).
  const gzipChunked =
    request.brokenHead === 'Transfer-Encoding: gzip' && request.framing === 'chunked';
  if (request.brokenHead !== undefined && !gzipChunked) return 400;
  if (request.method === 'CONNECT') return 'closed';
  if (request.version === 'missing-host') return 400;
  if (!WEBHOOK_PATHS.includes(request.path)) {
    // Operations routes answer their own methods (and express answers OPTIONS with Allow);
    // anything else is 404.
    return request.path === '/healthz' && ['GET', 'HEAD', 'OPTIONS'].includes(request.method)
      ? 200
      : 404;
  }
  if (request.method !== 'POST') return 405;
  if (['missing', 'garbage', 'stale', 'future'].includes(request.signature)) return 401;
  if (request.encoding !== undefined && request.encoding !== 'identity') return 415;
  if (request.framing === 'declared-huge') return 413;
  if (body.length > FUZZ_MAX_BODY_BYTES) return 413;
  if (request.signature !== 'valid') return 401;
  if (request.credential !== 'right') return 401;
  if (request.body !== 'envelope') return 400;
  return 204;
}

/** A fresh, unique eventId: fast-check repeats small values, the inbox must not see repeats. */
export function uniqueEventId(generated: unknown): string {
  return `${String(generated)}#${randomUUID()}`;
}
