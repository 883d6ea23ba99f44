/**
 * A core document as three parts, `head`, `unit` repeated `count` times, and `tail`, so that a
 * scenario can ask for a document of hundreds of megabytes (to try an importer's streaming or
 * the consumer's API_MAX_DOCUMENT_BYTES) without the simulator holding it in memory: it is
 * written to the socket block by block. A document without padding is `head` alone.
 *
 * Each format pads where its syntax has room for bulk that changes nothing of the business
 * content: an embedded attachment in UBL and PDF, whitespace in JSON, free-text segments in
 * EDIFACT (core-document.ts).
 */

export interface DocumentParts {
  head: Buffer;
  unit: Buffer;
  count: number;
  tail: Buffer;
}

/** Where a renderer puts the padding in its text, to be split there (splitAtFill). */
export const FILL_MARK = '\u0000fill\u0000';

/**
 * The content of every padding attachment: CSV rows that say what they are. 66 bytes, a
 * multiple of 3, so the base64 of n rows is n times the base64 of one row.
 */
export const PADDING_ROW = 'padding,a row the simulator adds to make the core document larger\n';

export function wholeDocument(content: string | Buffer): DocumentParts {
  const head = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return { head, unit: Buffer.alloc(0), count: 0, tail: Buffer.alloc(0) };
}

export function documentSize(parts: DocumentParts): number {
  return parts.head.length + parts.unit.length * parts.count + parts.tail.length;
}

/** Splits `text` at FILL_MARK: what precedes it is the head, what follows the tail. */
export function splitAtFill(
  text: string,
  unit: Buffer,
  count: number,
  encoding: BufferEncoding = 'utf8',
): DocumentParts {
  const at = text.indexOf(FILL_MARK);
  if (at < 0) throw new Error('the rendered document has no place for its padding');
  return {
    head: Buffer.from(text.slice(0, at), encoding),
    unit,
    count,
    tail: Buffer.from(text.slice(at + FILL_MARK.length), encoding),
  };
}

/**
 * The plain document, or, when it is smaller than `minBytes`, the padded one of at least
 * `minBytes`. `padded(count)` renders the document with `count` units of padding; its head and
 * tail may grow with `count` (a length or an offset with more digits), never shrink, so the
 * count worked out from one unit is enough.
 */
export function padToSize(
  minBytes: number | undefined,
  plain: () => DocumentParts,
  padded: (count: number) => DocumentParts,
): DocumentParts {
  const document = plain();
  if (minBytes === undefined || documentSize(document) >= minBytes) return document;
  const probe = padded(1);
  const fixed = probe.head.length + probe.tail.length;
  return padded(Math.max(1, Math.ceil((minBytes - fixed) / probe.unit.length)));
}

/** The bytes of a document in blocks of about `blockBytes`; the repeated part is built once. */
export function* documentBlocks(parts: DocumentParts, blockBytes = 64 * 1024): Generator<Buffer> {
  yield parts.head;
  if (parts.count > 0) {
    const perBlock = Math.max(1, Math.floor(blockBytes / parts.unit.length));
    const block = Buffer.concat(Array(Math.min(perBlock, parts.count)).fill(parts.unit));
    let left = parts.count;
    while (left >= perBlock) {
      yield block;
      left -= perBlock;
    }
    if (left > 0) yield block.subarray(0, left * parts.unit.length);
  }
  if (parts.tail.length > 0) yield parts.tail;
}
