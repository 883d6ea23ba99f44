import { describe, expect, it } from 'vitest';
import {
  type DocumentParts,
  documentBlocks,
  documentSize,
  FILL_MARK,
  PADDING_ROW,
  padToSize,
  splitAtFill,
  wholeDocument,
} from '../../../src/provider/document-parts.ts';

const unit = Buffer.from('0123456789');
/** A document whose head grows by one digit per power of ten of the count, like a PDF's /Length. */
const padded = (count: number): DocumentParts =>
  splitAtFill(`<doc length="${count * unit.length}">${FILL_MARK}</doc>`, unit, count);
const plain = () => wholeDocument('<doc/>');

describe('padToSize', () => {
  it('keeps the plain document when no size is asked for or it is large enough', () => {
    expect(padToSize(undefined, plain, padded)).toEqual(plain());
    expect(padToSize(6, plain, padded)).toEqual(plain());
  });

  it('pads to at least the size asked for, overshooting by less than a unit and a few digits', () => {
    for (const minBytes of [7, 40, 1_000, 123_457, 10_000_000]) {
      const parts = padToSize(minBytes, plain, padded);
      expect(parts.count).toBeGreaterThan(0);
      expect(documentSize(parts)).toBeGreaterThanOrEqual(minBytes);
      expect(documentSize(parts)).toBeLessThan(Math.max(minBytes, 22) + unit.length + 8);
    }
  });
});

describe('documentBlocks', () => {
  it('yields exactly head, count units and tail, in blocks of about the size given', () => {
    const parts = padded(1_003);
    const blocks = [...documentBlocks(parts, 64)];
    const expected = Buffer.concat([parts.head, ...Array(1_003).fill(unit), parts.tail]);
    expect(Buffer.concat(blocks).equals(expected)).toBe(true);
    expect(Math.max(...blocks.map((b) => b.length))).toBeLessThanOrEqual(64);
  });

  it('yields a document without padding as it is', () => {
    expect(Buffer.concat([...documentBlocks(wholeDocument('abc'))]).toString()).toBe('abc');
  });
});

it('the padding row is a multiple of 3 bytes, so its base64 repeats without seams', () => {
  const rows = PADDING_ROW.repeat(5);
  expect(Buffer.from(PADDING_ROW).toString('base64').repeat(5)).toBe(
    Buffer.from(rows).toString('base64'),
  );
});
