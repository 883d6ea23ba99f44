import { describe, expect, it } from 'vitest';
import { documentBlocks } from '../../../src/provider/document-parts.ts';
import { sampleInvoice } from '../../../src/provider/invoice.ts';
import { renderPdf } from '../../../src/provider/pdf-document.ts';

const party = (identifier: string, name: string) => ({ identifier, name, countryCode: 'NO' });
const body = sampleInvoice({
  supplier: party('0192:1', 'Smør (Bergen) AS \\ 東京'),
  customer: party('0192:2', 'C'),
  invoiceNo: 'INV-7',
  issueDate: '2026-01-05T09:00:00.000Z',
});

/**
 * What a PDF reader relies on to find the objects: the header, startxref pointing at the
 * cross-reference table, each entry at the byte where its object starts, each stream exactly
 * its /Length long, and %%EOF at the end.
 */
function checkStructure(bytes: Buffer): void {
  const text = bytes.toString('latin1');
  expect(text.startsWith('%PDF-1.4\n')).toBe(true);
  const startxref = /startxref\n(\d+)\n%%EOF\n$/.exec(text);
  expect(startxref).not.toBeNull();
  const xrefAt = Number(startxref?.[1]);
  const table = /^xref\n0 (\d+)\n((?:\d{10} \d{5} [fn] \n)+)trailer\n<< \/Size (\d+) /.exec(
    text.slice(xrefAt),
  );
  expect(table, 'a cross-reference table at startxref').not.toBeNull();
  const entries = (table?.[2] ?? '').match(/.{20}/gs) ?? [];
  expect(entries.length).toBe(Number(table?.[1]));
  expect(table?.[3]).toBe(table?.[1]);
  entries.slice(1).forEach((entry, index) => {
    const offset = Number(entry.slice(0, 10));
    expect(text.slice(offset, offset + 20)).toMatch(new RegExp(`^${index + 1} 0 obj\n<<`));
  });
  for (const match of text.matchAll(/\/Length (\d+) >>\nstream\n/g)) {
    const end = (match.index ?? 0) + match[0].length + Number(match[1]);
    expect(text.slice(end, end + 10)).toBe('\nendstream');
  }
}

describe('the PDF core document', () => {
  it('is structurally valid and names the document and its number', () => {
    const pdf = renderPdf(body, 'Credit note');
    expect(pdf.count).toBe(0);
    checkStructure(pdf.head);
    const text = pdf.head.toString('latin1');
    expect(text).toContain('(Credit note INV-7) Tj');
    expect(text).toContain('/Title (Credit note INV-7)');
    expect(text).toContain('(Amount due: 375.00 NOK) Tj');
  });

  it('writes Latin-1, escapes the string delimiters and replaces what Latin-1 lacks', () => {
    const text = renderPdf(body, 'Invoice').head.toString('latin1');
    expect(text).toContain('Supplier: Smør \\(Bergen\\) AS \\\\ ?? \\(0192:1\\)');
  });

  it('stays valid when padded: the embedded file holds the padding, every offset moves past it', () => {
    const unit = Buffer.from('a,b\n');
    const pdf = renderPdf(body, 'Invoice', { unit, count: 2_500 });
    const bytes = Buffer.concat([...documentBlocks(pdf)]);
    checkStructure(bytes);
    const text = bytes.toString('latin1');
    expect(text).toContain('/EmbeddedFiles << /Names [(padding.csv) 7 0 R] >>');
    expect(text).toContain(`/Length ${unit.length * 2_500} >>\nstream\n${'a,b\n'.repeat(2_500)}`);
  });
});
