import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkJsonShape,
  createJsonShapeScanner,
  JsonShapeError,
  type JsonShapeLimits,
  parseBoundedJson,
} from '../../../src/protocol/index.ts';

const WIDE: JsonShapeLimits = {
  maxDepth: 1_000,
  maxKeysPerObject: 1_000_000,
  maxStringBytes: Number.POSITIVE_INFINITY,
};

function limitOf(text: string, limits: Partial<JsonShapeLimits>): string | undefined {
  try {
    checkJsonShape(text, { ...WIDE, ...limits });
    return undefined;
  } catch (error) {
    if (!(error instanceof JsonShapeError)) throw error;
    return error.limit;
  }
}

/** The shape of a parsed value, worked out from the value itself rather than its text. */
function shapeOf(value: unknown): { depth: number; keys: number; stringBytes: number } {
  const stringBytes = (s: string) => Buffer.byteLength(JSON.stringify(s)) - 2;
  if (typeof value === 'string') return { depth: 0, keys: 0, stringBytes: stringBytes(value) };
  if (typeof value !== 'object' || value === null) return { depth: 0, keys: 0, stringBytes: 0 };
  const entries = Array.isArray(value)
    ? value.map((item) => ['', item] as const)
    : Object.entries(value);
  let depth = 0;
  let keys = Array.isArray(value) ? 0 : entries.length;
  let longest = 0;
  for (const [key, item] of entries) {
    const inner = shapeOf(item);
    depth = Math.max(depth, inner.depth);
    keys = Math.max(keys, inner.keys);
    longest = Math.max(longest, inner.stringBytes, Array.isArray(value) ? 0 : stringBytes(key));
  }
  return { depth: depth + 1, keys, stringBytes: longest };
}

describe('checkJsonShape, properties', () => {
  // Any JSON value, and values with long strings full of quotes, backslashes and control
  // characters (escaped when serialized): long strings take the scanner's indexOf path.
  const json = fc.oneof(
    fc.jsonValue({ maxDepth: 6 }),
    fc.dictionary(
      fc.string({ maxLength: 100, unit: 'binary' }),
      fc.array(fc.string({ maxLength: 300, unit: 'binary' }), { maxLength: 4 }),
      { maxKeys: 5 },
    ),
  );

  it('accepts any text at exactly its own shape, and refuses it one below on each limit', () => {
    fc.assert(
      fc.property(json, fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const { depth, keys, stringBytes } = shapeOf(value);
        const exact = { maxDepth: depth, maxKeysPerObject: keys, maxStringBytes: stringBytes };
        expect(() => checkJsonShape(text, exact)).not.toThrow();
        if (depth > 0) expect(limitOf(text, { maxDepth: depth - 1 })).toBe('depth');
        if (keys > 0) expect(limitOf(text, { maxKeysPerObject: keys - 1 })).toBe('keys');
        if (stringBytes > 0) {
          expect(limitOf(text, { maxStringBytes: stringBytes - 1 })).toBe('string');
        }
      }),
    );
  });

  it('gives the same answer however the bytes are cut into chunks', () => {
    const limits = fc.record({
      maxDepth: fc.integer({ min: 0, max: 6 }),
      maxKeysPerObject: fc.integer({ min: 0, max: 5 }),
      maxStringBytes: fc.integer({ min: 0, max: 20 }),
    });
    fc.assert(
      fc.property(json, limits, fc.array(fc.nat()), (value, shape, cuts) => {
        const bytes = Buffer.from(JSON.stringify(value));
        const whole = outcome(() => checkJsonShape(bytes, shape));
        const chunked = chunkedOutcome(bytes, shape, cuts);
        expect(chunked).toEqual(whole);
      }),
    );
  });
});

/**
 * The scanner's rules a byte at a time, as simply as they can be written: what the scanner,
 * with its loops and jumps for speed (issue 39), must answer for any bytes, error and offset.
 */
function referenceScan(bytes: Uint8Array, limits: JsonShapeLimits) {
  const members: number[] = [];
  let inString = false;
  let escaped = false;
  let stringBytes = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === 0x5c) escaped = true;
      else if (byte === 0x22) {
        inString = false;
        continue;
      }
      if (++stringBytes > limits.maxStringBytes) return { limit: 'string', offset: i };
    } else if (byte === 0x22) {
      inString = true;
      stringBytes = 0;
    } else if (byte === 0x5b || byte === 0x7b) {
      if (members.length >= limits.maxDepth) return { limit: 'depth', offset: i };
      members.push(byte === 0x7b ? 0 : -1);
    } else if (byte === 0x5d || byte === 0x7d) {
      members.pop();
    } else if (byte === 0x3a) {
      const count = members.at(-1);
      if (count === undefined || count < 0) continue;
      if (count + 1 > limits.maxKeysPerObject) return { limit: 'keys', offset: i };
      members[members.length - 1] = count + 1;
    }
  }
  return 'ok';
}

describe('checkJsonShape, the same answer as a byte at a time', () => {
  // Any bytes, JSON or not, rich in what the scanner acts on, with runs long enough for its
  // indexOf jumps (LONG_RUN, 256 bytes without a backslash) and escapes at every distance.
  const piece = fc.oneof(
    fc.constantFrom('"', '\\', '\\"', '[', ']', '{', '}', ':', ',', 'é', ' '),
    fc.string({ maxLength: 20 }),
    fc.integer({ min: 200, max: 700 }).map((n) => 'b'.repeat(n)),
  );
  const text = fc.oneof(
    fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join('')),
    fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value)),
  );
  const limits = fc.record({
    maxDepth: fc.integer({ min: 0, max: 8 }),
    maxKeysPerObject: fc.integer({ min: 0, max: 6 }),
    maxStringBytes: fc.oneof(
      fc.integer({ min: 0, max: 30 }),
      fc.integer({ min: 200, max: 800 }),
      fc.constant(Number.POSITIVE_INFINITY),
    ),
  });

  it('refuses the same texts at the same byte, whole or in any chunks', () => {
    fc.assert(
      fc.property(text, limits, fc.array(fc.nat()), (value, shape, cuts) => {
        const bytes = Buffer.from(value);
        const expected = referenceScan(bytes, shape);
        expect(outcome(() => checkJsonShape(bytes, shape))).toEqual(expected);
        const chunked = chunkedOutcome(bytes, shape, cuts);
        expect(chunked).toEqual(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses a long string at the byte past its limit, after escapes and across chunks', () => {
    const limits = { ...WIDE, maxStringBytes: 300 };
    // 290 plain bytes, an escape at the limit's edge, then a long run: the 301st byte.
    const text = Buffer.from(`["${'a'.repeat(290)}\\n${'b'.repeat(600)}"]`);
    const expected = { limit: 'string', offset: 2 + 300 };
    expect(referenceScan(text, limits)).toEqual(expected);
    expect(outcome(() => checkJsonShape(text, limits))).toEqual(expected);
    for (const cut of [1, 2, 250, 291, 292, 293, 302, 303, 700]) {
      const scanner = createJsonShapeScanner(limits);
      expect(
        outcome(() => {
          scanner.write(text.subarray(0, cut));
          scanner.write(text.subarray(cut));
        }),
        `cut at ${cut}`,
      ).toEqual(expected);
    }
  });
});

function outcome(run: () => void) {
  try {
    run();
    return 'ok';
  } catch (error) {
    if (!(error instanceof JsonShapeError)) throw error;
    return { limit: error.limit, offset: error.offset };
  }
}

/** What a streaming scanner answers for `bytes` written in pieces cut at `cuts` (mod length). */
function chunkedOutcome(bytes: Buffer, shape: JsonShapeLimits, cuts: number[]) {
  const scanner = createJsonShapeScanner(shape);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  return outcome(() => {
    let from = 0;
    for (const to of [...points, bytes.length]) {
      scanner.write(bytes.subarray(from, to));
      from = to;
    }
  });
}

describe('checkJsonShape, edge cases', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('allows nesting at exactly the limit and refuses one level past it, where it starts', () => {
    expect(limitOf(nested(32), { maxDepth: 32 })).toBeUndefined();
    expect(() => checkJsonShape(nested(33), { ...WIDE, maxDepth: 32 })).toThrow(
      expect.objectContaining({ limit: 'depth', max: 32, offset: 32 }),
    );
    expect(limitOf('{"a":{"b":[{}]}}', { maxDepth: 4 })).toBeUndefined();
    expect(limitOf('{"a":{"b":[{}]}}', { maxDepth: 3 })).toBe('depth');
    expect(limitOf('1', { maxDepth: 0 })).toBeUndefined();
    expect(limitOf('[]', { maxDepth: 0 })).toBe('depth');
  });

  it('stops at the first level past the limit of a 15 MiB bomb, without reading on', () => {
    const bomb = Buffer.alloc(15 * 1024 * 1024, '[');
    const started = performance.now();
    expect(limitOf(bomb.toString(), { maxDepth: 64 })).toBe('depth');
    // The whole bomb is still scanned quickly when the limit is never reached (bytes in strings).
    const quoted = Buffer.concat([Buffer.from('"'), bomb, Buffer.from('"')]);
    expect(() => checkJsonShape(quoted, WIDE)).not.toThrow();
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('ignores brackets, braces and colons inside strings', () => {
    const text = JSON.stringify({ a: '[[[[{{{{:::]]]}}}', 'b[{:': ['::', '{"x":1}'] });
    expect(limitOf(text, { maxDepth: 2, maxKeysPerObject: 2 })).toBeUndefined();
  });

  it('follows escapes: an escaped quote does not end a string, an escaped backslash does not escape the quote after it', () => {
    // "a\"[[[" is one string; the brackets are inside it.
    expect(limitOf('["a\\"[[["]', { maxDepth: 1 })).toBeUndefined();
    // "a\\" ends after the escaped backslash; the brackets after it are structure.
    expect(limitOf('["a\\\\",[[[]]]]', { maxDepth: 3 })).toBe('depth');
    expect(limitOf('["a\\\\",[[[]]]]', { maxDepth: 4 })).toBeUndefined();
    // A \u escape is six bytes of the string, as written.
    expect(limitOf('["\\u005b"]', { maxStringBytes: 6 })).toBeUndefined();
    expect(limitOf('["\\u005b"]', { maxStringBytes: 5 })).toBe('string');
  });

  it('counts the members of each object on its own, keys included in the string limit', () => {
    const members = (n: number) =>
      `{${Array.from({ length: n }, (_, i) => `"k${i}":{"x":1,"y":2}`).join(',')}}`;
    expect(limitOf(members(1000), { maxKeysPerObject: 1000 })).toBeUndefined();
    expect(limitOf(members(1001), { maxKeysPerObject: 1000 })).toBe('keys');
    // A thousand small objects in an array: each has two members.
    const list = `[${Array.from({ length: 1000 }, () => '{"a":1,"b":2}').join(',')}]`;
    expect(limitOf(list, { maxKeysPerObject: 2 })).toBeUndefined();
    expect(limitOf('{"abcdef":1}', { maxStringBytes: 5 })).toBe('string');
  });

  it('counts a string in UTF-8 bytes', () => {
    expect(limitOf('"ééé"', { maxStringBytes: 6 })).toBeUndefined();
    expect(limitOf('"ééé"', { maxStringBytes: 5 })).toBe('string');
  });

  it('leaves grammar to JSON.parse: stray closing brackets do not throw or count below zero', () => {
    expect(limitOf(']]]}}[[', { maxDepth: 2 })).toBeUndefined();
    expect(limitOf(']]]}}[[[', { maxDepth: 2 })).toBe('depth');
    expect(() => parseBoundedJson(']]', WIDE)).toThrow(SyntaxError);
  });

  it('parseBoundedJson parses what passes and names the limit of what does not', () => {
    expect(parseBoundedJson(Buffer.from('{"a":[1,"é"]}'), WIDE)).toEqual({ a: [1, 'é'] });
    expect(() => parseBoundedJson(nested(3), { ...WIDE, maxDepth: 2 })).toThrow(
      /deeper than allowed \(2\) at byte 2/,
    );
  });
});
