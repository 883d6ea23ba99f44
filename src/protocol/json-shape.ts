/**
 * Bounds on the shape of a JSON text, checked before JSON.parse (issue 26, point 1).
 *
 * A size limit alone does not bound what parsing costs: 15 MiB of `[[[[...` took the consumer
 * from 117 to 1,396 MiB and blocked its event loop for 4 s before ending in a RangeError, and a
 * signed 1 MiB body of 70,000 keys took 1.17 s. So every JSON the consumer parses from outside
 * (webhook bodies, the messaging API's answers and problem bodies, the transaction JSON) is
 * first run through this scanner, which reads the bytes once, in order, keeps no value and
 * stops at the first limit passed: its cost is linear in what it reads and its memory is the
 * limits' (one counter per open level).
 *
 * Why not a library: none of the maintained JSON parsers on npm has these limits.
 * secure-json-parse and bourne call JSON.parse first and only strip `__proto__`; the streaming
 * parsers (stream-json, @streamparser/json, clarinet, jsonparse) build every value and emit an
 * event or token object per value, without a depth, key or string limit, so using one still
 * means writing the counting below, at several times its cost per byte; jsonc-parser's scanner
 * is lenient JSON-with-comments and also leaves the counting to us. The scanner below is no
 * parser: it does not validate the grammar (JSON.parse, which runs next, does), it only counts
 * what JSON.parse would have to build.
 */

/** The limits one kind of JSON text must stay within. */
export interface JsonShapeLimits {
  /** Arrays and objects open at once; `[]` at the top is depth 1. */
  maxDepth: number;
  /** Members of one object. */
  maxKeysPerObject: number;
  /** Bytes of one string, key or value, as written (escapes count as their bytes). */
  maxStringBytes: number;
}

/**
 * Webhook bodies (at most WEBHOOK_MAX_BODY_BYTES, 1 MiB by default). An envelope is 3 levels
 * deep with a descriptor in it (documents, their transaction: 5); a status change's properties
 * are a few dozen names; the longest string is `validationResults`, a JSON array of findings in
 * a string, a few KiB for a hundred findings.
 */
export const WEBHOOK_JSON_LIMITS: Readonly<JsonShapeLimits> = Object.freeze({
  maxDepth: 32,
  maxKeysPerObject: 1_000,
  maxStringBytes: 256 * 1024,
});

/** The messaging API's JSON answers: descriptors, lists of them, statuses, problem bodies. */
export const API_JSON_LIMITS: Readonly<JsonShapeLimits> = WEBHOOK_JSON_LIMITS;

/**
 * The transaction JSON (GET /transactions/...), a business document the importer parses: it
 * may be far larger (up to API_MAX_DOCUMENT_BYTES) and hold long strings (an embedded
 * attachment in base64), so only depth and width are bounded; its size bounds its strings.
 */
export const DOCUMENT_JSON_LIMITS: Readonly<JsonShapeLimits> = Object.freeze({
  maxDepth: 64,
  maxKeysPerObject: 10_000,
  maxStringBytes: Number.POSITIVE_INFINITY,
});

export type JsonShapeLimit = 'depth' | 'keys' | 'string';

/** A JSON text breaks one of its limits; `offset` is the byte where the scanner stopped. */
export class JsonShapeError extends Error {
  override readonly name = 'JsonShapeError';
  readonly limit: JsonShapeLimit;
  readonly max: number;
  readonly offset: number;
  constructor(limit: JsonShapeLimit, max: number, offset: number) {
    super(`${DESCRIPTIONS[limit]} (${max}) at byte ${offset}`);
    this.limit = limit;
    this.max = max;
    this.offset = offset;
  }
}

const DESCRIPTIONS: Readonly<Record<JsonShapeLimit, string>> = {
  depth: 'the JSON nests arrays and objects deeper than allowed',
  keys: 'a JSON object has more members than allowed',
  string: 'a JSON string is longer than allowed',
};

/** Fed a text in chunks, as it arrives; throws JsonShapeError as soon as a limit is passed. */
export interface JsonShapeScanner {
  write(chunk: Uint8Array): void;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
/**
 * Bytes of a string read one at a time, since its start or its last backslash, before the
 * rest is skipped with indexOf. An indexOf is a call into C++, some 50 to 100 ns whatever it
 * finds, the loop half a nanosecond a byte: worth it for a long run (base64, most of a large
 * text), not for the short ones between the escapes of a JSON text in a string, where one
 * indexOf per escape cost a 3 KB webhook body 9 of its 13 us (issue 39).
 */
const LONG_RUN = 256;

/** Where a scan left off at the end of a chunk. */
interface ScanState {
  readonly limits: Readonly<JsonShapeLimits>;
  /** Per open level: its member count, or -1 for an array. Never longer than maxDepth + 1. */
  readonly members: number[];
  /** In a string, after a backslash or not, with how many of its bytes so far. */
  inString: boolean;
  escaped: boolean;
  stringBytes: number;
  /** The offset in the text of the next chunk's first byte. */
  offset: number;
}

/**
 * A scanner for one text. UTF-8 needs no decoding for this: every byte of a multi-byte
 * character is 0x80 or above, so none is mistaken for a quote, a bracket or a colon.
 */
export function createJsonShapeScanner(limits: Readonly<JsonShapeLimits>): JsonShapeScanner {
  const state: ScanState = {
    limits,
    members: [],
    inString: false,
    escaped: false,
    stringBytes: 0,
    offset: 0,
  };
  return { write: (chunk) => scan(state, chunk) };
}

/**
 * One chunk of the text, from where the last one left off. Written for the JIT, as the loop
 * that every byte of every JSON from outside passes through (issue 39: 14-16 us of a 3 KB
 * webhook body's 144 us, now about 4): a string's bytes, nine tenths of a webhook's, in a
 * loop of their own that looks only for the closing quote and backslashes (taken one at a
 * time through the whole state machine, they cost three times as much); its state in locals
 * of one function for every scanner (a method made per scanner got deoptimized over and
 * over). The checks and the offset each error reports are the same as a byte-at-a-time
 * loop's: a string is refused at the byte that passes its limit.
 */
function scan(state: ScanState, chunk: Uint8Array): void {
  const { maxDepth, maxKeysPerObject, maxStringBytes } = state.limits;
  const members = state.members;
  const offset = state.offset;
  const length = chunk.length;
  let { inString, escaped, stringBytes } = state;
  let i = 0;
  while (i < length) {
    if (!inString) {
      const byte = chunk[i] as number;
      i++;
      if (STRUCTURAL[byte] === 0) continue;
      switch (byte) {
        case QUOTE:
          inString = true;
          stringBytes = 0;
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          if (members.length >= maxDepth)
            throw new JsonShapeError('depth', maxDepth, offset + i - 1);
          members.push(byte === OPEN_OBJECT ? 0 : -1);
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          // One too many is JSON.parse's to refuse; here it must only not count below zero.
          members.pop();
          break;
        case COLON: {
          // One colon per member, outside strings: the member count of the open object.
          const top = members.length - 1;
          const count = members[top];
          if (count === undefined || count < 0) break;
          if (count + 1 > maxKeysPerObject) {
            throw new JsonShapeError('keys', maxKeysPerObject, offset + i - 1);
          }
          members[top] = count + 1;
          break;
        }
      }
      continue;
    }
    // The string's bytes from i (an escape is two of them), to its closing quote or the
    // chunk's end. A run of LONG_RUN bytes without a backslash (base64, most of a large text)
    // jumps to the next quote or backslash with indexOf, native, instead of a byte at a time;
    // a position found is kept until passed, so a chunk is searched once, not once per escape.
    const start = i;
    // Bytes of the string before `start` (in earlier chunks).
    const before = stringBytes;
    let j = escaped ? i + 1 : i;
    let run = j;
    let closing = -1;
    let nextQuote = -1;
    let nextBackslash = -1;
    while (j < length) {
      if (j - run >= LONG_RUN) {
        if (nextQuote < j) nextQuote = indexOrEnd(chunk, QUOTE, j);
        if (nextBackslash < j) nextBackslash = indexOrEnd(chunk, BACKSLASH, j);
        j = nextQuote < nextBackslash ? nextQuote : nextBackslash;
        // Past the limit already: the error is known without reading to the string's end.
        if (j === length || before + j - start > maxStringBytes) break;
      }
      const byte = chunk[j] as number;
      if (byte === QUOTE) {
        closing = j;
        break;
      }
      if (byte === BACKSLASH) {
        j += 2;
        run = j;
      } else {
        j++;
      }
    }
    const end = closing === -1 ? Math.min(j, length) : closing;
    if (before + end - start > maxStringBytes) {
      throw new JsonShapeError('string', maxStringBytes, offset + start + maxStringBytes - before);
    }
    if (closing === -1) {
      // The string goes on in the next chunk; a backslash at this one's end escapes its first.
      escaped = j > length;
      stringBytes = before + length - start;
      i = length;
    } else {
      inString = false;
      escaped = false;
      i = closing + 1;
    }
  }
  state.inString = inString;
  state.escaped = escaped;
  state.stringBytes = stringBytes;
  state.offset = offset + length;
}

/** 1 for the bytes the scan acts on outside strings (quote, brackets, colon), 0 for the rest. */
const STRUCTURAL = new Uint8Array(256);
for (const byte of [QUOTE, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, COLON]) {
  STRUCTURAL[byte] = 1;
}

/** The index of the first `byte` of `chunk` from `from` on, or its length when there is none. */
function indexOrEnd(chunk: Uint8Array, byte: number, from: number): number {
  const at = chunk.indexOf(byte, from);
  return at === -1 ? chunk.length : at;
}

/** Checks a whole text (bytes, or a string as UTF-8); throws JsonShapeError. */
export function checkJsonShape(text: Uint8Array | string, limits: Readonly<JsonShapeLimits>): void {
  createJsonShapeScanner(limits).write(typeof text === 'string' ? Buffer.from(text) : text);
}

/** JSON.parse, after checkJsonShape: throws JsonShapeError, or SyntaxError as JSON.parse does. */
export function parseBoundedJson(
  text: Uint8Array | string,
  limits: Readonly<JsonShapeLimits>,
): unknown {
  checkJsonShape(text, limits);
  return JSON.parse(typeof text === 'string' ? text : UTF8.decode(text));
}

const UTF8 = new TextDecoder();
