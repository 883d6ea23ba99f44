import { describe, expect, it } from 'vitest';
import { sampleInvoice } from '../../../src/provider/invoice.ts';
import { validateInvoice } from '../../../src/provider/invoice-validation.ts';
import { escapeXml } from '../../../src/provider/ubl-elements.ts';
import { renderUblInvoice } from '../../../src/provider/ubl-invoice.ts';

const party = (identifier: string, name: string) => ({ identifier, name, countryCode: 'NO' });
const body = sampleInvoice({
  supplier: party('0192:999999999', 'A & B'),
  customer: party('0192:111111111', 'C'),
  invoiceNo: 'X-1',
  issueDate: '2026-01-05T09:00:00.000Z',
});

describe('the sample invoice and its UBL rendering', () => {
  it('the sample passes validation without findings', () => {
    expect(validateInvoice(body as unknown as Record<string, unknown>)).toEqual([]);
  });

  it('escapes the five XML special characters', () => {
    expect(escapeXml(`<a href="x">'&'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;',
    );
  });

  it('sums the lines into the totals and uses date-only issue dates', () => {
    const xml = renderUblInvoice(body);
    expect(xml).toContain('<cbc:IssueDate>2026-01-05</cbc:IssueDate>');
    expect(xml).toContain('<cbc:PayableAmount currencyID="NOK">375.00</cbc:PayableAmount>');
    expect(xml).toContain('<cbc:RegistrationName>A &amp; B</cbc:RegistrationName>');
    expect(xml).toContain('<cbc:EndpointID schemeID="0192">999999999</cbc:EndpointID>');
  });
});
