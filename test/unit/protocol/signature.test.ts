import { describe, expect, it } from 'vitest';
import {
  checkSignatureHeader,
  computeSignature,
  HMAC_KEY_CACHE_SIZE,
  parseSignatureHeader,
  SignatureError,
  signatureHeader,
  verifySignature,
} from '../../../src/protocol/index.ts';

// Computed independently of this code:
//   printf '%s' '1767225600.{"eventId":"evt_1","action":"created"}' \
//     | openssl dgst -sha256 -hmac 'whsec_test_secret'
const SECRET = 'whsec_test_secret';
const OLD_SECRET = 'whsec_old_secret';
const T = 1767225600;
const BODY = '{"eventId":"evt_1","action":"created"}';
const EXPECTED = '12c2736e85f0af3e145b11cdedae13d12e8e1dbf9cfd0d72acb7790737c1a189';
const EXPECTED_OLD = 'f8ea3d9cba5795acfa2bde170547e798095a5a1ddf8a428c1885d8a305c85cfc';
const NOW = () => T * 1000;

function verify(header: string | undefined, options: { secrets?: string[]; now?: number } = {}) {
  return verifySignature({
    header,
    body: BODY,
    secrets: options.secrets ?? [SECRET],
    toleranceSeconds: 300,
    now: () => options.now ?? NOW(),
  });
}

function failure(fn: () => unknown): SignatureError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SignatureError) return error;
    throw error;
  }
  throw new Error('expected a SignatureError');
}

describe('computeSignature', () => {
  it('matches an HMAC-SHA256 computed with openssl', () => {
    expect(computeSignature(SECRET, T, BODY)).toBe(EXPECTED);
    expect(computeSignature(SECRET, T, Buffer.from(BODY))).toBe(EXPECTED);
  });

  it('builds one v0 per secret during a rotation', () => {
    expect(signatureHeader({ secrets: [SECRET, OLD_SECRET], timestamp: T, body: BODY })).toBe(
      `t=${T},v0=${EXPECTED},v0=${EXPECTED_OLD}`,
    );
  });
});

describe('verifySignature', () => {
  it('accepts the documented header', () => {
    expect(verify(`t=${T},v0=${EXPECTED}`)).toEqual({ timestamp: T });
  });

  it('accepts either signature while a secret is rotated, with old or new secret configured', () => {
    const header = `t=${T},v0=${EXPECTED},v0=${EXPECTED_OLD}`;
    expect(() => verify(header, { secrets: [SECRET] })).not.toThrow();
    expect(() => verify(header, { secrets: [OLD_SECRET] })).not.toThrow();
    expect(() => verify(`t=${T},v0=${EXPECTED}`, { secrets: [OLD_SECRET, SECRET] })).not.toThrow();
  });

  it('ignores entries of unknown schemes', () => {
    expect(() => verify(`t=${T},v1=zzz,v0=${EXPECTED},x=1`)).not.toThrow();
  });

  it('rejects a signature made with another secret or over another body', () => {
    expect(failure(() => verify(`t=${T},v0=${EXPECTED_OLD}`)).reason).toBe('signature_mismatch');
    const tampered = computeSignature(SECRET, T, `${BODY} `);
    expect(failure(() => verify(`t=${T},v0=${tampered}`)).reason).toBe('signature_mismatch');
  });

  it('rejects a signature whose t was changed (t is signed)', () => {
    expect(failure(() => verify(`t=${T + 1},v0=${EXPECTED}`)).reason).toBe('signature_mismatch');
  });

  it('allows the tolerance either way and rejects stale and future timestamps', () => {
    const header = `t=${T},v0=${EXPECTED}`;
    expect(() => verify(header, { now: (T + 300) * 1000 })).not.toThrow();
    expect(() => verify(header, { now: (T - 300) * 1000 })).not.toThrow();
    expect(failure(() => verify(header, { now: (T + 301) * 1000 })).reason).toBe(
      'timestamp_too_old',
    );
    expect(failure(() => verify(header, { now: (T - 301) * 1000 })).reason).toBe(
      'timestamp_in_future',
    );
  });

  it('accepts upper-case hex (the same bytes) and optional whitespace around entries', () => {
    expect(() => verify(`t=${T},v0=${EXPECTED.toUpperCase()}`)).not.toThrow();
    expect(() => verify(` t=${T} , v0=${EXPECTED} `)).not.toThrow();
  });

  it.each([
    ['missing header', undefined, 'missing_header'],
    ['empty header', '', 'missing_header'],
    ['missing t', `v0=${EXPECTED}`, 'malformed_header'],
    ['non-numeric t', `t=abc,v0=${EXPECTED}`, 'malformed_header'],
    ['negative t', `t=-${T},v0=${EXPECTED}`, 'malformed_header'],
    ['fractional t', `t=${T}.5,v0=${EXPECTED}`, 'malformed_header'],
    ['empty t', `t=,v0=${EXPECTED}`, 'malformed_header'],
    ['duplicated t', `t=${T},t=${T},v0=${EXPECTED}`, 'malformed_header'],
    ['empty v0', `t=${T},v0=`, 'malformed_header'],
    ['v0 not hex', `t=${T},v0=${'g'.repeat(64)}`, 'malformed_header'],
    ['v0 too short', `t=${T},v0=${EXPECTED.slice(2)}`, 'malformed_header'],
    ['whitespace inside a value', `t= ${T},v0=${EXPECTED}`, 'malformed_header'],
    ['entry without =', `t=${T},v0${EXPECTED}`, 'malformed_header'],
    ['empty entry', `t=${T},,v0=${EXPECTED}`, 'malformed_header'],
    ['only unknown schemes', `t=${T},v1=${EXPECTED}`, 'no_v0_signature'],
  ])('rejects a malformed header: %s', (_name, header, reason) => {
    const error = failure(() => verify(header));
    expect(error.reason).toBe(reason);
    expect(error.name).toBe('SignatureError');
    expect(error.message.length).toBeGreaterThan(10);
  });

  it('verifies with each secret of a list that changes from call to call (a rotation), its key made once per secret', () => {
    const header = `t=${T},v0=${EXPECTED}`;
    // The same calls again and again: answered as the first time, whatever was kept.
    for (let round = 0; round < 3; round++) {
      expect(verify(header, { secrets: [SECRET] })).toEqual({ timestamp: T });
      // Rotated: the new secret added beside the old, then the old one removed.
      expect(verify(`t=${T},v0=${EXPECTED_OLD}`, { secrets: [SECRET, OLD_SECRET] })).toEqual({
        timestamp: T,
      });
      expect(failure(() => verify(`t=${T},v0=${EXPECTED_OLD}`, { secrets: [SECRET] })).reason).toBe(
        'signature_mismatch',
      );
    }
  });

  it('fails a wrong secret with the same reason and message, kept key or not', () => {
    const header = `t=${T},v0=${EXPECTED}`;
    const first = failure(() => verify(header, { secrets: ['whsec_wrong'] }));
    const again = failure(() => verify(header, { secrets: ['whsec_wrong'] }));
    expect(first.reason).toBe('signature_mismatch');
    expect([again.reason, again.message]).toEqual([first.reason, first.message]);
    // A secret that differs from the right one only in its last byte, or is its prefix.
    for (const near of [`${SECRET.slice(0, -1)}u`, SECRET.slice(0, -1), `${SECRET} `, '']) {
      expect(failure(() => verify(header, { secrets: [near] })).reason).toBe('signature_mismatch');
    }
  });

  it('keeps a bounded number of keys, and verifies right past the bound', () => {
    // More secrets than keys are kept, each used twice with another in between: a key dropped
    // is made again, never another secret's key used in its place.
    const many = Array.from({ length: HMAC_KEY_CACHE_SIZE * 2 + 3 }, (_, i) => `whsec_${i}`);
    for (const round of [1, 2]) {
      for (const [i, secret] of many.entries()) {
        const signed = computeSignature(secret, T, BODY);
        const other = many[(i + round) % many.length] as string;
        expect(verify(`t=${T},v0=${signed}`, { secrets: [other, secret] })).toEqual({
          timestamp: T,
        });
        expect(failure(() => verify(`t=${T},v0=${signed}`, { secrets: [other] })).reason).toBe(
          'signature_mismatch',
        );
      }
    }
    // And the openssl figure still holds once the first secrets were dropped and made again.
    expect(computeSignature(SECRET, T, BODY)).toBe(EXPECTED);
  });

  it('parses several v0 entries in order', () => {
    expect(parseSignatureHeader(`t=${T},v0=${EXPECTED},v0=${EXPECTED_OLD}`)).toEqual({
      timestamp: T,
      signatures: [EXPECTED, EXPECTED_OLD],
    });
  });
});

describe('checkSignatureHeader (before the body is read)', () => {
  const check = (header: string | undefined, now = NOW) =>
    checkSignatureHeader({ header, toleranceSeconds: 300, now });

  it('passes a well-formed, fresh header whatever its signature', () => {
    expect(check(`t=${T},v0=${'0'.repeat(64)}`)).toEqual({
      timestamp: T,
      signatures: ['0'.repeat(64)],
    });
  });

  it.each([
    ['missing header', undefined, 'missing_header'],
    ['malformed header', `t=${T},v0=zz`, 'malformed_header'],
    ['no v0', `t=${T},v1=${EXPECTED}`, 'no_v0_signature'],
    ['stale', `t=${T - 301},v0=${EXPECTED}`, 'timestamp_too_old'],
    ['future', `t=${T + 301},v0=${EXPECTED}`, 'timestamp_in_future'],
  ])('refuses a %s with the same reason as verifySignature', (_name, header, reason) => {
    expect(failure(() => check(header)).reason).toBe(reason);
  });

  it('never quotes the header in its message', () => {
    const junk = `t=${T},${'<script>'.repeat(100)}`;
    const error = failure(() => check(junk));
    expect(error.reason).toBe('malformed_header');
    expect(error.message).not.toContain('<script>');
    expect(failure(() => check(`t=NaN${'x'.repeat(50)},v0=${EXPECTED}`)).message).not.toContain(
      'xxxx',
    );
  });
});
