/**
 * What a sample invoice's parties' countries add to it: the German rules' payment
 * instructions, buyer reference and seller contact between German parties, a Dutch supplier's
 * payment instructions, a Greek supplier's invoice number and party names; an address in each
 * party's country.
 */
import { describe, expect, it } from 'vitest';
import { sampleInvoice } from '../../../src/provider/invoice.ts';
import { validateInvoice } from '../../../src/provider/invoice-validation.ts';
import type { SampleParty } from '../../../src/provider/sample-parties.ts';

const party = (identifier: string, countryCode: string, name = `Party ${countryCode}`) => ({
  identifier,
  name,
  countryCode,
});
const NO = party('0192:987654325', 'NO');
const DE = party('9930:DE123456789', 'DE', 'Muster GmbH');
const DE2 = party('0088:4001234567891', 'DE');
const NL = party('0106:12345678', 'NL', 'Polder BV');
const GR = party('9933:123456783', 'GR', 'Olympos AE');
const SE = party('0007:5560000001', 'SE');

const invoice = (supplier: SampleParty, customer: SampleParty) =>
  sampleInvoice({
    supplier,
    customer,
    invoiceNo: 'INV-7',
    issueDate: '2026-03-02T09:00:00.000Z',
  }).invoice;

describe('a sample invoice', () => {
  it('between German parties has payment instructions, a buyer reference and a seller contact', () => {
    const body = invoice(DE, DE2);
    expect(body.paymentMeans).toEqual({
      code: '58',
      accountId: 'DE82370400440123456789',
      accountName: 'Muster GmbH',
    });
    expect(body.buyerReference).toBe('PO-INV-7');
    expect(body.supplier.contact).toEqual({
      name: 'Buchhaltung',
      telephone: '+49 30 1234567',
      email: 'rechnung@example.com',
    });
    // A German supplier's invoice abroad needs none of them.
    expect(invoice(DE, NO)).not.toHaveProperty('paymentMeans');
    expect(invoice(DE, NO).supplier).not.toHaveProperty('contact');
  });

  it('from a Dutch supplier has payment instructions to a Dutch IBAN', () => {
    expect(invoice(NL, NO).paymentMeans).toMatchObject({ code: '58', accountName: 'Polder BV' });
    expect(invoice(NL, NO).paymentMeans?.accountId).toMatch(/^NL\d{2}INGB\d{10}$/);
    expect(invoice(NO, NL)).not.toHaveProperty('paymentMeans');
  });

  it('from a Greek supplier has the six-segment number of GR-R-001 and both parties’ names', () => {
    const body = invoice(GR, SE);
    expect(body.invoiceNo).toBe('123456783|02/03/2026|0|1.1|SIM|INV-7');
    expect(body.supplier).toMatchObject({ vatNumber: 'EL123456783', tradingName: 'Olympos AE' });
    expect(body.customer).toMatchObject({ tradingName: 'Party SE' });
    expect(body.customer).not.toHaveProperty('vatNumber');
    expect(invoice(GR, party('9933:998877666', 'GR')).customer.vatNumber).toBe('EL998877666');
    expect(invoice(SE, GR).invoiceNo).toBe('INV-7');
  });

  it('gives each party an address in its own country, and nothing the rules do not ask for', () => {
    const body = invoice(SE, NO);
    expect(body.supplier).toEqual({
      vatNumber: 'SE556000000101',
      name: 'Party SE',
      identifier: '0007:5560000001',
      address: {
        streetNameAndNumber: 'Drottninggatan 1',
        city: 'Stockholm',
        postalZone: '111 51',
        countryCode: 'SE',
      },
    });
    expect(body.customer).toEqual({
      name: 'Party NO',
      identifier: '0192:987654325',
      address: {
        streetNameAndNumber: 'Kongens gate 2',
        city: 'Bergen',
        postalZone: '5003',
        countryCode: 'NO',
      },
    });
    expect(invoice(party('0088:5901234123457', 'JP'), NO).supplier).toMatchObject({
      address: { city: 'Capital City', countryCode: 'JP' },
    });
  });

  it('from a Danish or Icelandic supplier gives its registration, and an Icelandic buyer’s', () => {
    const DK = party('0184:12345678', 'DK');
    const IS = party('0196:4502032039', 'IS');
    const IS2 = party('0196:6112081979', 'IS');
    expect(invoice(DK, NO).supplier.legalRegistration).toEqual({
      id: '12345678',
      schemeId: '0184',
    });
    expect(invoice(IS, IS2).supplier.legalRegistration).toEqual({
      id: '4502032039',
      schemeId: '0196',
    });
    expect(invoice(IS, IS2).customer.legalRegistration).toEqual({
      id: '6112081979',
      schemeId: '0196',
    });
    expect(invoice(IS, DK).customer).not.toHaveProperty('legalRegistration');
    expect(invoice(NO, DK).customer).not.toHaveProperty('legalRegistration');
  });

  it.each([
    ['DE', 'DE', DE, DE2],
    ['NL', 'NL', NL, party('0190:00000001234567890000', 'NL')],
    ['GR', 'GR', GR, party('9933:998877666', 'GR')],
    ['SE', 'NO', SE, NO],
    ['IS', 'IS', party('0196:4502032039', 'IS'), party('0196:6112081979', 'IS')],
    ['DK', 'DK', party('0184:12345678', 'DK'), party('0088:5790012345675', 'DK')],
  ])('from %s to %s passes the simulator’s validation', (_from, _to, supplier, customer) => {
    const body = sampleInvoice({
      supplier,
      customer,
      invoiceNo: 'INV-8',
      issueDate: '2026-03-02T09:00:00.000Z',
    });
    expect(validateInvoice(body as unknown as Record<string, unknown>)).toEqual([]);
  });
});
