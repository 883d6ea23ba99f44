import { describe, expect, it } from 'vitest';
import { validateInvoice } from '../../../src/provider/invoice-validation.ts';
import { renderUblInvoice } from '../../../src/provider/ubl-invoice.ts';
import { BROKEN, MATRIX } from '../../support/peppol-matrix.ts';

const errors = (body: Record<string, unknown>) =>
  validateInvoice(body).filter((r) => r.type === 'error');

describe('the Peppol matrix in the simulator', () => {
  it.each(MATRIX.map((c) => [c.name, c]))('approves %s', (_, c) => {
    expect(errors(c.body)).toEqual([]);
  });

  it.each(BROKEN.map((c) => [c.name, c]))('refuses a body with %s', (_, c) => {
    expect(errors(c.body).map((r) => r.code)).toContain(c.rule);
  });

  it('writes the VAT breakdown, the totals and the mapped codes of a three-rate invoice', () => {
    const c = MATRIX.find((m) => m.name === 'NO-NO-S-25-15-12-NOK');
    const xml = renderUblInvoice(c?.body ?? {});
    // Lines 300 at 25%, 149.70 at 15% (3 x 49.90), 1200 at 12%.
    for (const [taxable, tax, rate] of [
      ['300.00', '75.00', '25'],
      ['149.70', '22.46', '15'],
      ['1200.00', '144.00', '12'],
    ]) {
      expect(xml).toContain(
        `<cac:TaxSubtotal><cbc:TaxableAmount currencyID="NOK">${taxable}</cbc:TaxableAmount><cbc:TaxAmount currencyID="NOK">${tax}</cbc:TaxAmount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>${rate}</cbc:Percent>`,
      );
    }
    expect(xml).toContain(
      '<cbc:TaxInclusiveAmount currencyID="NOK">1891.16</cbc:TaxInclusiveAmount>',
    );
    expect(xml).toContain('<cbc:InvoicedQuantity unitCode="KGM">3</cbc:InvoicedQuantity>');
    expect(xml).toContain('<cbc:DueDate>2026-04-01</cbc:DueDate>');
    expect(xml).not.toContain('standard');
    expect(xml).toContain(
      '<cac:PartyTaxScheme><cbc:CompanyID>Foretaksregisteret</cbc:CompanyID><cac:TaxScheme><cbc:ID>TAX</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>',
    );
  });

  it('keeps a unit price of three decimals as sent', () => {
    const c = MATRIX.find((m) => m.name === 'NO-NO-three-decimal-unit-price');
    const xml = renderUblInvoice(c?.body ?? {});
    expect(xml).toContain('<cbc:PriceAmount currencyID="NOK">0.125</cbc:PriceAmount>');
    expect(xml).toContain(
      '<cbc:LineExtensionAmount currencyID="NOK">1.00</cbc:LineExtensionAmount>',
    );
  });

  it('gives the minimal body a due date 30 days after its issue date', () => {
    const xml = renderUblInvoice(MATRIX[0]?.body ?? {});
    expect(xml).toMatch(
      /<cbc:IssueDate>2026-03-02<\/cbc:IssueDate>\s*<cbc:DueDate>2026-04-01<\/cbc:DueDate>/,
    );
  });

  it('renders a let-through body without its lines\u2019 elements instead of failing', () => {
    const body = {
      ...MATRIX[0]?.body,
      invoice: { ...(MATRIX[0]?.body.invoice as object), invoiceLines: [{}], orderReference: null },
    };
    const xml = renderUblInvoice(body);
    expect(xml).toContain('<cac:InvoiceLine><cbc:ID>1</cbc:ID>');
    expect(xml).not.toMatch(/<(cbc:[A-Za-z]+)[^>]*><\/\1>/);
  });

  it("names the service's own rule for a missing order number when a buyer reference stands in for it", () => {
    const c = MATRIX.find((m) => m.name === 'SE-SE-S-25-12-6-SEK');
    const invoice = c?.body.invoice as Record<string, unknown>;
    const body = {
      ...c?.body,
      invoice: { ...invoice, orderReference: { issueDate: '2026-03-01T00:00:00Z' } },
    };
    expect(errors(body).map((r) => r.code)).toEqual(['SIM-OR-02']);
  });
});
