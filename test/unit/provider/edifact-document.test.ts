import { describe, expect, it } from 'vitest';
import { documentBlocks } from '../../../src/provider/document-parts.ts';
import { renderEdifact } from '../../../src/provider/edifact-document.ts';
import { sampleInvoice } from '../../../src/provider/invoice.ts';

const party = (identifier: string, name: string) => ({ identifier, name, countryCode: 'NO' });
const body = sampleInvoice({
  supplier: party('0192:111', "O'Neil + Søn: ja? 東"),
  customer: party('0192:222', 'Buyer AS'),
  invoiceNo: 'INV-9',
  issueDate: '2026-01-05T09:30:00.000Z',
});

/** The segments of an interchange: split at every `'` not released by `?`. */
function segments(text: string): string[] {
  return text.split(/(?<=(?:^|[^?])(?:\?\?)*)'\n/).filter((segment) => segment !== '');
}

/** UNT's count, and the segments from UNH to UNT as counted. */
function counted(text: string): { declared: number; actual: number } {
  const all = segments(text);
  const unh = all.findIndex((s) => s.startsWith('UNH+'));
  const unt = all.findIndex((s) => s.startsWith('UNT+'));
  return { declared: Number(all[unt]?.split('+')[1]), actual: unt - unh + 1 };
}

describe('the EDIFACT core document', () => {
  it('is an INVOIC for an invoice, with the release character before each service character', () => {
    const text = renderEdifact(body, 'Invoice', { reference: 'abc-123' }).head.toString('latin1');
    expect(segments(text).slice(0, 6)).toEqual([
      'UNA:+.? ',
      'UNB+UNOC:3+111:0192+222:0192+260105:0930+abc-123',
      'UNH+1+INVOIC:D:96A:UN',
      'BGM+380+INV-9+9',
      'DTM+137:20260105:102',
      'RFF+ON:PO-INV-9',
    ]);
    expect(text).toContain("NAD+SU+111::0192++O?'Neil ?+ Søn?: ja?? ??+Storgata 1+Oslo++0155+NO'");
    expect(text).toContain("MOA+77:375.00'\nUNT+");
    expect(counted(text).declared).toBe(counted(text).actual);
  });

  it('is an INVOIC with BGM 381 for a credit note and an ORDERS from the buyer for an order', () => {
    const credit = renderEdifact(body, 'CreditNote', { reference: 'r' }).head.toString('latin1');
    expect(credit).toContain("BGM+381+INV-9+9'");
    const order = renderEdifact(body, 'Order', { reference: 'r' }).head.toString('latin1');
    expect(order).toContain("UNB+UNOC:3+222:0192+111:0192+260105:0930+r'");
    expect(order).toContain("UNH+1+ORDERS:D:96A:UN'\nBGM+220+INV-9+9'");
    expect(order).toContain("QTY+21:2:kilogram'");
    expect(counted(order).declared).toBe(counted(order).actual);
  });

  it('counts its padding segments in UNT', () => {
    const parts = renderEdifact(body, 'Invoice', { reference: 'r', count: 1_234 });
    const text = Buffer.concat([...documentBlocks(parts)]).toString('latin1');
    expect(segments(text).filter((s) => s.startsWith('FTX+AAI+++'))).toHaveLength(1_234);
    expect(counted(text)).toEqual({ declared: 1_234 + 22, actual: 1_234 + 22 });
  });
});
