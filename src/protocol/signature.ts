/**
 * Webhook signatures (docs/signature.md#verify-every-request, decided in docs/decisions.md).
 *
 * Header: `t=<unix seconds>,v0=<hex>[,v0=<hex>...]`. Each v0 is the lowercase hex of
 * HMAC-SHA256, keyed with the UTF-8 bytes of an endpoint secret, over the bytes
 * `<t>.<raw body>`. During a secret rotation the sender puts one v0 per valid secret in the
 * header; entries of other schemes (`v1=...`) are ignored so the sender can add one later.
 *
 * Verification works on the raw bytes as received, never on re-serialized JSON: any change
 * of whitespace or key order breaks the signature, which is the point.
 *
 * Error messages never quote the header: it is attacker-controlled, and the messages end up in
 * HTTP answers and log lines.
 */
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

export type SignatureFailure =
  | 'missing_header'
  | 'malformed_header'
  | 'no_v0_signature'
  | 'signature_mismatch'
  | 'timestamp_too_old'
  | 'timestamp_in_future';

/** Why a request failed verification. `reason` is stable; `message` says what to check. */
export class SignatureError extends Error {
  override readonly name = 'SignatureError';
  readonly reason: SignatureFailure;
  constructor(reason: SignatureFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

export type Body = string | Uint8Array;

const SCHEME = 'v0';
const HEX_SIGNATURE = /^[0-9a-fA-F]{64}$/;
const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * How many secrets' HMAC keys are kept: a receiver verifies with a handful (WEBHOOK_SECRETS,
 * two during a rotation), a sender signs with one per endpoint. Past it the oldest is dropped,
 * so a caller that passes ever new secrets holds a bounded number of keys, never a growing one.
 */
export const HMAC_KEY_CACHE_SIZE = 64;

const hmacKeys = new Map<string, KeyObject>();

/**
 * The HMAC key of a secret, made once (issue 39): createHmac(algorithm, string) imports the raw
 * secret into a new key object on every call, and the HMAC was 20 us of a webhook request's
 * 144; the key object of the same UTF-8 bytes gives the same MAC. Keyed by the secret itself,
 * so a rotated list (a secret added, one removed) needs nothing: a new secret gets its key at
 * its first use.
 */
function hmacKey(secret: string): KeyObject {
  let key = hmacKeys.get(secret);
  if (key === undefined) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    if (hmacKeys.size >= HMAC_KEY_CACHE_SIZE) {
      hmacKeys.delete(hmacKeys.keys().next().value as string);
    }
    hmacKeys.set(secret, key);
  }
  return key;
}

/** HMAC-SHA256 keyed with `secret` over `<timestamp>.<body>`. */
function signatureMac(secret: string, timestamp: number, body: Body) {
  return createHmac('sha256', hmacKey(secret)).update(`${timestamp}.`).update(body);
}

/** The hex signature of one body at one timestamp with one secret. */
export function computeSignature(secret: string, timestamp: number, body: Body): string {
  return signatureMac(secret, timestamp, body).digest('hex');
}

/** The full header value, one v0 per secret (two while a rotated-out secret is still valid). */
export function signatureHeader(options: {
  secrets: readonly string[];
  timestamp: number;
  body: Body;
}): string {
  if (options.secrets.length === 0)
    throw new TypeError('signatureHeader needs at least one secret');
  const entries = options.secrets.map(
    (secret) => `${SCHEME}=${computeSignature(secret, options.timestamp, options.body)}`,
  );
  return [`t=${options.timestamp}`, ...entries].join(',');
}

export interface ParsedSignatureHeader {
  timestamp: number;
  signatures: string[];
}

/**
 * Splits the header into its timestamp and v0 values. Optional whitespace around entries is
 * allowed (as around HTTP list elements); anything else that is not exactly the documented form
 * is rejected, because a lenient parser is how signature checks get bypassed.
 */
export function parseSignatureHeader(header: string | undefined): ParsedSignatureHeader {
  if (header === undefined || header.trim() === '') {
    throw new SignatureError('missing_header', 'The SVC-Webhook-Signature header is missing.');
  }
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const rawEntry of header.split(',')) {
    const entry = rawEntry.trim();
    const eq = entry.indexOf('=');
    if (eq <= 0) throw malformed('an entry is not of the form key=value');
    const key = entry.slice(0, eq);
    const value = entry.slice(eq + 1);
    if (key === 't') {
      if (timestamp !== undefined) throw malformed('t appears more than once');
      if (!UNIX_SECONDS.test(value)) throw malformed('t is not a number of unix seconds');
      timestamp = Number(value);
    } else if (key === SCHEME) {
      if (value === '') throw malformed('v0 is empty');
      if (!HEX_SIGNATURE.test(value)) throw malformed('v0 is not 64 hexadecimal digits');
      signatures.push(value);
    }
    // Other schemes are skipped on purpose: a sender may add them before consumers know them.
  }
  if (timestamp === undefined) throw malformed('t is missing');
  if (signatures.length === 0) {
    throw new SignatureError('no_v0_signature', 'The signature header has no v0 signature.');
  }
  return { timestamp, signatures };
}

export interface VerifyOptions {
  /** The SVC-Webhook-Signature header value as received. */
  header: string | undefined;
  /** The raw request body bytes, before any JSON parsing. */
  body: Body;
  /** Every secret currently valid for the endpoint; more than one during a rotation. */
  secrets: readonly string[];
  /** Allowed difference between the header's t and now, either way. */
  toleranceSeconds: number;
  /** Current time in milliseconds; injected so tests control it. @default Date.now */
  now?: () => number;
}

export interface CheckHeaderOptions {
  /** The SVC-Webhook-Signature header value as received. */
  header: string | undefined;
  /** Allowed difference between the header's t and now, either way. */
  toleranceSeconds: number;
  /** Current time in milliseconds; injected so tests control it. @default Date.now */
  now?: () => number;
}

/**
 * What can be checked before the body is read: the header is well-formed and its timestamp is
 * within tolerance. A receiver calls this first so that a request nobody signed recently costs
 * no body read, then verifySignature once the body is in. Throws the same SignatureError
 * reasons as verifySignature.
 *
 * A stale header is refused here whatever its signature, so for a request that is both stale
 * and wrongly signed the reason is `timestamp_too_old`, not `signature_mismatch`.
 */
export function checkSignatureHeader(options: CheckHeaderOptions): ParsedSignatureHeader {
  const parsed = parseSignatureHeader(options.header);
  checkTimestamp(parsed.timestamp, options);
  return parsed;
}

/**
 * Verifies a webhook request. Returns the signed timestamp, or throws a SignatureError.
 * The signature is checked before the timestamp so that "timestamp out of tolerance" is only
 * ever reported for an authentic request, which points at clock skew rather than a bad secret.
 */
export function verifySignature(options: VerifyOptions): { timestamp: number } {
  const { timestamp, signatures } = parseSignatureHeader(options.header);
  const candidates = signatures.map((hex) => Buffer.from(hex, 'hex'));
  const matched = options.secrets.some((secret) => {
    const expected = signatureMac(secret, timestamp, options.body).digest();
    return candidates.some((candidate) => timingSafeEqual(candidate, expected));
  });
  if (!matched) {
    throw new SignatureError(
      'signature_mismatch',
      'No v0 signature matches: check that the secret is this endpoint’s and that the raw request body is verified, not re-serialized JSON.',
    );
  }
  checkTimestamp(timestamp, options);
  return { timestamp };
}

function checkTimestamp(
  timestamp: number,
  options: { toleranceSeconds: number; now?: () => number },
): void {
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  const skew = nowSeconds - timestamp;
  if (skew > options.toleranceSeconds) {
    throw new SignatureError(
      'timestamp_too_old',
      `The signature timestamp is ${skew} s old, more than the ${options.toleranceSeconds} s allowed: a replay, or this host's clock is wrong.`,
    );
  }
  if (-skew > options.toleranceSeconds) {
    throw new SignatureError(
      'timestamp_in_future',
      `The signature timestamp is ${-skew} s in the future, more than the ${options.toleranceSeconds} s allowed: check this host's clock.`,
    );
  }
}

function malformed(detail: string): SignatureError {
  return new SignatureError('malformed_header', `The signature header is malformed: ${detail}.`);
}
