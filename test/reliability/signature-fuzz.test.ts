/**
 * The signature header parser and verifier under random and hostile input (fast-check, fixed
 * seeds so a failure replays). The header is attacker-controlled: whatever it holds, the
 * parser must answer with the documented result or a SignatureError, never another exception,
 * and must agree with the grammar docs/how-it-works.md documents:
 *
 *   t=<unix seconds>,v0=<64 hex>[,v0=<64 hex>...]   entries in any order, exactly one t,
 *   optional whitespace around entries, entries of other schemes ignored.
 *
 * The reference below is written from that sentence, not from the code.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  computeSignature,
  parseSignatureHeader,
  SignatureError,
  signatureHeader,
  verifySignature,
} from '../../src/protocol/index.ts';
import { FUZZ_SEED } from './support/fuzz.ts';

const RUNS = Number(process.env.RELIABILITY_FUZZ_RUNS ?? 2000);

type Reference = { ok: true; timestamp: number; signatures: string[] } | { ok: false };

/** The documented grammar, independently: what a careful reader of how-it-works.md would write. */
function reference(header: string): Reference {
  if (header.trim() === '') return { ok: false };
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const entry of header.split(',').map((e) => e.trim())) {
    const match = /^([^=]+)=(.*)$/s.exec(entry);
    if (match === null) return { ok: false };
    const [, key, value] = match as unknown as [string, string, string];
    if (key === 't') {
      if (timestamp !== undefined || !/^[0-9]{1,12}$/.test(value)) return { ok: false };
      timestamp = Number.parseInt(value, 10);
    } else if (key === 'v0') {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) return { ok: false };
      signatures.push(value);
    }
  }
  if (timestamp === undefined || signatures.length === 0) return { ok: false };
  return { ok: true, timestamp, signatures };
}

function parse(header: string): Reference {
  try {
    const { timestamp, signatures } = parseSignatureHeader(header);
    return { ok: true, timestamp, signatures };
  } catch (error) {
    // Anything but a SignatureError is a crash of the request that sent this header.
    if (!(error instanceof SignatureError)) throw error;
    return { ok: false };
  }
}

const hex64 = fc.stringMatching(/^[0-9a-fA-F]{64}$/);
const whitespace = fc.constantFrom('', ' ', '  ', '\t', ' \t ');
/** Entries close to valid ones: the region where a lenient parser goes wrong. */
const entry = fc.oneof(
  fc.nat({ max: 999_999_999_999 }).map((t) => `t=${t}`),
  hex64.map((h) => `v0=${h}`),
  fc.constantFrom(
    't=',
    't=-1',
    't=1.5',
    't=1e9',
    't=0x10',
    't=9999999999999',
    'v0=',
    'v0=zz',
    'v1=abc',
    'V0=00',
    'T=1',
    '=1',
    'v0',
    '',
    't==1',
    'v0==a',
  ),
  hex64.map((h) => `v0=${h.slice(1)}`),
  hex64.map((h) => `v0=${h}0`),
  fc
    .tuple(fc.stringMatching(/^[a-z0-9]{1,4}$/), fc.string({ maxLength: 20 }))
    .map(([k, v]) => `${k}=${v}`),
  fc.string({ maxLength: 30, unit: 'binary' }),
);
const nearValidHeader = fc
  .array(fc.tuple(whitespace, entry, whitespace), { minLength: 0, maxLength: 6 })
  .map((parts) => parts.map(([before, e, after]) => `${before}${e}${after}`).join(','));
const anyHeader = fc.oneof(
  nearValidHeader,
  fc.string({ maxLength: 200, unit: 'binary' }),
  fc.string({ maxLength: 200, unit: 'grapheme' }),
);

describe('the signature header parser, fuzzed', () => {
  it('agrees with the documented grammar on near-valid and random headers, and only ever throws SignatureError', () => {
    fc.assert(
      fc.property(anyHeader, (header) => {
        expect(parse(header)).toEqual(reference(header));
      }),
      { seed: FUZZ_SEED, numRuns: RUNS },
    );
  });

  it('reads back exactly what a sender wrote: any t, several v0, unknown schemes, whitespace', () => {
    const unknownEntry = fc
      .tuple(fc.stringMatching(/^v[1-9]$/), fc.stringMatching(/^[!-+\--~]{0,20}$/))
      .map(([k, v]) => `${k}=${v}`);
    fc.assert(
      fc.property(
        fc.nat({ max: 999_999_999_999 }),
        fc.array(hex64, { minLength: 1, maxLength: 4 }),
        fc.array(unknownEntry, { maxLength: 3 }),
        fc.array(whitespace, { minLength: 16, maxLength: 16 }),
        (t, signatures, unknown, spaces) => {
          const entries = [`t=${t}`, ...signatures.map((s) => `v0=${s}`), ...unknown];
          const header = entries.map((e, i) => `${spaces[i % 16]}${e}${spaces[(i + 8) % 16]}`);
          expect(parseSignatureHeader(header.join(','))).toEqual({ timestamp: t, signatures });
        },
      ),
      { seed: FUZZ_SEED, numRuns: RUNS },
    );
  });
});

describe('verification, fuzzed', () => {
  const secret = fc.string({ minLength: 1, maxLength: 64, unit: 'grapheme' });
  const body = fc.uint8Array({ maxLength: 512 });
  const now = 1_767_225_600_000;
  const verify = (header: string, bytes: Uint8Array, secrets: string[]) =>
    verifySignature({ header, body: bytes, secrets, toleranceSeconds: 300, now: () => now });
  const failure = (run: () => unknown): string | undefined => {
    try {
      run();
      return undefined;
    } catch (error) {
      if (!(error instanceof SignatureError)) throw error;
      return error.reason;
    }
  };

  it('accepts what the sender signed, with any configured secret of a rotation, and nothing changed', () => {
    fc.assert(
      fc.property(
        secret,
        secret,
        body,
        fc.integer({ min: -300, max: 300 }),
        fc.nat(),
        (current, old, bytes, skew, flip) => {
          const t = now / 1000 + skew;
          const header = signatureHeader({ secrets: [current, old], timestamp: t, body: bytes });
          expect(failure(() => verify(header, bytes, [current]))).toBeUndefined();
          expect(failure(() => verify(header, bytes, [old]))).toBeUndefined();
          // One bit of the body changed: no match, whatever the secret.
          if (bytes.length > 0) {
            const changed = Uint8Array.from(bytes);
            const i = flip % changed.length;
            changed[i] = (changed[i] as number) ^ (1 << (flip % 8));
            expect(failure(() => verify(header, changed, [current, old]))).toBe(
              'signature_mismatch',
            );
          }
          // The signed t moved by a second: no match.
          const moved = header.replace(`t=${t}`, `t=${t + 1}`);
          expect(failure(() => verify(moved, bytes, [current]))).toBe('signature_mismatch');
        },
      ),
      { seed: FUZZ_SEED, numRuns: RUNS / 4 },
    );
  });

  it('refuses any header not made with the secret, for the documented reasons only', () => {
    const reasons = new Set([
      'missing_header',
      'malformed_header',
      'no_v0_signature',
      'signature_mismatch',
      'timestamp_too_old',
      'timestamp_in_future',
    ]);
    fc.assert(
      fc.property(anyHeader, body, secret, (header, bytes, key) => {
        const reason = failure(() => verify(header, bytes, [key]));
        // A random header can only pass by carrying the right HMAC: never, in practice.
        expect(reasons.has(reason as string), String(reason)).toBe(true);
      }),
      { seed: FUZZ_SEED, numRuns: RUNS },
    );
  });

  it('an entry of a signature computed elsewhere is checked, not trusted: v0 of another secret fails', () => {
    fc.assert(
      fc.property(secret, secret, body, (mine, theirs, bytes) => {
        fc.pre(mine !== theirs);
        const t = now / 1000;
        const header = `t=${t},v0=${computeSignature(theirs, t, bytes)}`;
        expect(failure(() => verify(header, bytes, [mine]))).toBe('signature_mismatch');
      }),
      { seed: FUZZ_SEED, numRuns: RUNS / 4 },
    );
  });
});
