/**
 * A small, valid PDF 1.4 of the invoice data of a message, for a scenario that delivers a PDF
 * core document (docs/messaging-api.md#document-formats): one A4 page naming the document and
 * its number, the parties, the lines and the totals, in Helvetica, and the number again as the
 * document's title. Padding (document-parts.ts) is an embedded CSV file, so the padded PDF is
 * as valid as the plain one: every object is in the cross-reference table at its byte offset.
 *
 * Text is written as Latin-1 (WinAnsiEncoding); characters outside it become `?`.
 */
import type { SubmitInvoiceBody } from '../protocol/index.ts';
import { readBillingDocument } from './billing/billing-document.ts';
import { formatCents } from './billing/cents.ts';
import { type DocumentParts, FILL_MARK, splitAtFill, wholeDocument } from './document-parts.ts';

/** A PDF string literal: Latin-1 only, with its three special characters escaped. */
function pdfString(text: string): string {
  const latin1 = text.replace(/[^\u0020-\u007e\u00a0-\u00ff]/g, '?');
  return `(${latin1.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

const amount = (value: number) => (typeof value === 'number' ? value.toFixed(2) : String(value));

function pageText(body: SubmitInvoiceBody, title: string): string {
  const { invoice } = body;
  const currency = invoice.currencyCode;
  // The totals of the UBL document, allowances, charges and prepaid amount included.
  const { totals } = readBillingDocument(body as unknown as Record<string, unknown>);
  const cents = (value: number | undefined, label: string) =>
    value === undefined ? [] : [`${label}: ${formatCents(value)} ${currency}`];
  const lines = [
    `Issue date: ${invoice.issueDate.slice(0, 10)}`,
    `Order reference: ${invoice.orderReference.documentNo}`,
    `Supplier: ${invoice.supplier.name} (${invoice.supplier.identifier}), VAT ${invoice.supplier.vatNumber}`,
    `Customer: ${invoice.customer.name} (${invoice.customer.identifier})`,
    '',
    ...invoice.invoiceLines.map(
      (l, i) =>
        `${i + 1}. ${l.name} (${l.itemNo}): ${l.quantity} ${l.unitOfMeasure.unit} x ${amount(l.unitPriceAmount)} = ${amount(l.taxableAmount)} ${currency}, VAT ${l.taxPercentage}% ${amount(l.taxAmount)}`,
    ),
    '',
    ...cents(totals.allowanceCents, 'Allowances'),
    ...cents(totals.chargeCents, 'Charges'),
    `Total excluding VAT: ${formatCents(totals.taxExclusiveCents)} ${currency}`,
    `VAT: ${formatCents(totals.taxCents)} ${currency}`,
    ...cents(totals.prepaidCents, 'Paid in advance'),
    `Amount due: ${formatCents(totals.payableCents)} ${currency}`,
  ];
  return [
    'BT',
    '/F1 18 Tf',
    '50 790 Td',
    `${pdfString(`${title} ${invoice.invoiceNo}`)} Tj`,
    '/F1 10 Tf',
    '14 TL',
    '0 -10 Td',
    ...lines.map((line) => `T* ${pdfString(line)} Tj`),
    'ET',
  ].join('\n');
}

/**
 * `title` names the document type (`Invoice`, `Credit note`, `Order`); `fill`, when given, is
 * the padding: `count` times `unit` in an embedded file.
 */
export function renderPdf(
  body: SubmitInvoiceBody,
  title: string,
  fill?: { unit: Buffer; count: number },
): DocumentParts {
  const content = pageText(body, title);
  const documentTitle = pdfString(`${title} ${body.invoice.invoiceNo}`);
  const padded = fill !== undefined && fill.count > 0;
  const fillBytes = padded ? fill.unit.length * fill.count : 0;
  const objects = [
    `<< /Type /Catalog /Pages 2 0 R${padded ? ' /Names << /EmbeddedFiles << /Names [(padding.csv) 7 0 R] >> >>' : ''} >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    `<< /Title ${documentTitle} /Producer (invoicing message service simulator) >>`,
    ...(padded
      ? [
          '<< /Type /Filespec /F (padding.csv) /UF (padding.csv) /EF << /F 8 0 R >> >>',
          `<< /Type /EmbeddedFile /Subtype /text#2Fcsv /Length ${fillBytes} >>\nstream\n${FILL_MARK}\nendstream`,
        ]
      : []),
  ];
  // The binary comment line marks the file as binary for transfer tools (PDF 1.4, 3.4.1).
  let text = '%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n';
  // The byte offset of the end of `text`: one Latin-1 byte per character, the padding at its size.
  const end = () => text.length + (text.includes(FILL_MARK) ? fillBytes - FILL_MARK.length : 0);
  const offsets: number[] = [];
  for (const [index, object] of objects.entries()) {
    offsets.push(end());
    text += `${index + 1} 0 obj\n${object}\nendobj\n`;
  }
  const xrefAt = end();
  text += [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>`,
    'startxref',
    String(xrefAt),
    '%%EOF',
    '',
  ].join('\n');
  if (!padded) {
    return wholeDocument(Buffer.from(text, 'latin1'));
  }
  return splitAtFill(text, fill.unit, fill.count, 'latin1');
}
