/**
 * The matrix of submit-invoice bodies whose core documents are checked against the official
 * Peppol BIS Billing 3.0 validators (test/official/peppol-bis.test.ts) and against the
 * simulator's own validation (test/unit/provider/peppol-matrix.test.ts): every VAT category
 * (S at several rates, Z, E, AE, K, G, O, L, M), suppliers and buyers in several countries
 * with their national rules, invoices and credit notes, allowances and charges, a prepaid
 * amount, a unit price with three decimals, a given VAT breakdown, payment means, and the
 * minimal body of SPEC 2.1 with its unit and category words, also as people write them.
 */

import { mergeOverrides, sampleInvoice } from '../../src/provider/invoice.ts';
import type { UblBillingDocument } from '../../src/provider/ubl-invoice.ts';
import { renderUblInvoice } from '../../src/provider/ubl-invoice.ts';

export interface MatrixCase {
  name: string;
  body: Record<string, unknown>;
  /** A scenario's choice of core document, when not the body's own. */
  document?: UblBillingDocument;
}

interface Party {
  identifier: string;
  name: string;
  vatNumber?: string;
  taxRegistrationId?: string;
  address: { streetNameAndNumber: string; city: string; postalZone: string; countryCode: string };
  legalRegistration?: { id: string; schemeId: string };
  contact?: { name: string; telephone: string; email: string };
}

const address = (countryCode: string, city: string, postalZone: string) => ({
  streetNameAndNumber: 'Main Street 1',
  city,
  postalZone,
  countryCode,
});

/** One valid party per country, with the identifiers its national rules check. */
export const PARTIES = {
  NO: {
    identifier: '0192:987654325',
    name: 'Nordlys AS',
    vatNumber: 'NO987654325MVA',
    taxRegistrationId: 'Foretaksregisteret',
    address: address('NO', 'Oslo', '0155'),
    legalRegistration: { id: '987654325', schemeId: '0192' },
  },
  NO2: {
    identifier: '0192:999999999',
    name: 'Fjord Kjøkken AS',
    vatNumber: 'NO999999999MVA',
    address: address('NO', 'Bergen', '5003'),
  },
  SE: {
    identifier: '0007:5560000001',
    name: 'Svea Handel AB',
    vatNumber: 'SE556000000101',
    address: address('SE', 'Stockholm', '111 22'),
    legalRegistration: { id: '5560000001', schemeId: '0007' },
  },
  DK: {
    identifier: '0184:12345678',
    name: 'Dansk Træ ApS',
    vatNumber: 'DK12345678',
    address: address('DK', 'København', '1050'),
    legalRegistration: { id: '12345678', schemeId: '0184' },
  },
  DE: {
    identifier: '9930:DE123456789',
    name: 'Muster GmbH',
    vatNumber: 'DE123456789',
    address: address('DE', 'Berlin', '10115'),
    contact: {
      name: 'Erika Muster',
      telephone: '+49 30 1234567',
      email: 'rechnung@muster.example',
    },
  },
  DE2: {
    identifier: '9930:DE987654321',
    name: 'Beispiel AG',
    vatNumber: 'DE987654321',
    address: address('DE', 'München', '80331'),
  },
  NL: {
    identifier: '0106:12345678',
    name: 'Polder BV',
    vatNumber: 'NL123456789B01',
    address: address('NL', 'Amsterdam', '1011 AB'),
    legalRegistration: { id: '12345678', schemeId: '0106' },
  },
  NL2: {
    identifier: '0106:87654321',
    name: 'Grachten BV',
    vatNumber: 'NL987654321B01',
    address: address('NL', 'Amsterdam', '1011 AB'),
    legalRegistration: { id: '87654321', schemeId: '0106' },
  },
  BE: {
    identifier: '0208:0123456749',
    name: 'Brabant NV',
    vatNumber: 'BE0123456749',
    address: address('BE', 'Brussel', '1000'),
  },
  FR: {
    identifier: '0009:12345678900012',
    name: 'Lumière SARL',
    vatNumber: 'FR12345678901',
    address: address('FR', 'Paris', '75001'),
  },
  ES: {
    identifier: '9920:ESB12345678',
    name: 'Islas SL',
    vatNumber: 'ESB12345678',
    address: address('ES', 'Las Palmas', '35001'),
  },
  US: {
    identifier: '0088:5901234123457',
    name: 'Acme Inc.',
    address: address('US', 'Boston', '02108'),
  },
} satisfies Record<string, Party>;

const ISSUE_DATE = '2026-03-02T09:00:00.000Z';

/** A line: net is quantity x price rounded to cents, tax is net x rate rounded. */
export function line(
  n: number,
  options: { quantity: number; price: number; category: string; rate: number; unit?: string },
): Record<string, unknown> {
  const net = Math.round(options.quantity * options.price * 100) / 100;
  return {
    itemNo: `ITEM-${n}`,
    name: `Item ${n}`,
    quantity: options.quantity,
    unitOfMeasure: { unit: options.unit ?? 'C62' },
    unitPriceAmount: options.price,
    taxCategoryType: options.category,
    taxableAmount: net,
    taxAmount: Math.round(net * options.rate) / 100,
    taxPercentage: options.rate,
  };
}

/** A body from `supplier` to `customer` in `currency`, with `extra` merged into its invoice. */
export function matrixBody(
  supplier: Party,
  customer: Party,
  lines: Record<string, unknown>[],
  extra: Record<string, unknown> = {},
  currency = 'EUR',
): Record<string, unknown> {
  const base = sampleInvoice({
    supplier: { identifier: supplier.identifier, name: supplier.name, countryCode: 'NO' },
    customer: { identifier: customer.identifier, name: customer.name, countryCode: 'NO' },
    invoiceNo: 'M-1',
    issueDate: ISSUE_DATE,
  });
  const { vatNumber, ...supplierRest } = supplier;
  return mergeOverrides(base, {
    invoice: {
      currencyCode: currency,
      supplier: { ...supplierRest, vatNumber: vatNumber ?? null },
      customer,
      invoiceLines: lines,
      ...extra,
    },
  }) as Record<string, unknown>;
}

const { NO, NO2, SE, DK, DE, DE2, NL, NL2, BE, FR, ES, US } = PARTIES;
const S25 = (n: number, quantity = 2, price = 150) =>
  line(n, { quantity, price, category: 'S', rate: 25 });

/** The specification's minimal body, with its unit and category words. */
const minimalBody = (invoiceNo: string) =>
  sampleInvoice({
    supplier: { identifier: NO.identifier, name: NO.name, countryCode: 'NO' },
    customer: { identifier: NO2.identifier, name: NO2.name, countryCode: 'NO' },
    invoiceNo,
    issueDate: ISSUE_DATE,
  }) as unknown as Record<string, unknown>;

/** The minimal body with its line's unit and category written another way. */
const minimalBodyWith = (invoiceNo: string, unit: string, category: string) => {
  const body = minimalBody(invoiceNo);
  const [first] = (body.invoice as { invoiceLines: Record<string, unknown>[] }).invoiceLines;
  return mergeOverrides(body, {
    invoice: { invoiceLines: [{ ...first, unitOfMeasure: { unit }, taxCategoryType: category }] },
  }) as Record<string, unknown>;
};

export const MATRIX: readonly MatrixCase[] = [
  { name: 'minimal-body-words', body: minimalBody('MIN-1') },
  {
    name: 'minimal-body-words-capitalised',
    body: minimalBodyWith('MIN-3', 'Kilograms', 'StandardRated'),
  },
  {
    name: 'minimal-body-credit-note-by-scenario',
    document: 'CreditNote',
    body: minimalBody('MIN-2'),
  },
  {
    name: 'NO-NO-S-25-15-12-NOK',
    body: matrixBody(
      NO,
      NO2,
      [
        S25(1),
        line(2, { quantity: 3, price: 49.9, category: 'standard', rate: 15, unit: 'kilogram' }),
        line(3, { quantity: 1, price: 1200, category: 'reduced', rate: 12, unit: 'HUR' }),
      ],
      {
        dueDate: '2026-04-01',
        paymentMeans: { code: '30', accountId: '12345678903', paymentId: '1234567890128' },
      },
      'NOK',
    ),
  },
  {
    name: 'NO-NO-three-decimal-unit-price',
    body: matrixBody(
      NO,
      NO2,
      [line(1, { quantity: 8, price: 0.125, category: 'S', rate: 25, unit: 'piece' })],
      {},
      'NOK',
    ),
  },
  {
    name: 'SE-SE-S-25-12-6-SEK',
    body: matrixBody(
      SE,
      { ...SE, identifier: '0007:5560000001', name: 'Göta Bygg AB' },
      [
        S25(1),
        line(2, { quantity: 4, price: 80, category: 'S', rate: 12 }),
        line(3, { quantity: 10, price: 19.95, category: 'S', rate: 6 }),
      ],
      { paymentTerms: '30 dagar netto', buyerReference: 'Anna Svensson' },
      'SEK',
    ),
  },
  {
    name: 'DK-DK-S-25-DKK-allowance-charge',
    body: matrixBody(
      DK,
      {
        ...DK,
        identifier: '0184:87654321',
        name: 'Jysk Kunde A/S',
        vatNumber: 'DK87654321',
        legalRegistration: { id: '87654321', schemeId: '0184' },
      },
      [S25(1, 10, 99.5)],
      {
        allowanceCharges: [
          {
            chargeIndicator: false,
            amount: 50,
            reasonCode: '95',
            reason: 'Discount',
            taxCategoryType: 'S',
            taxPercentage: 25,
          },
          {
            chargeIndicator: true,
            amount: 39.5,
            reason: 'Freight',
            reasonCode: 'FC',
            taxCategoryType: 'S',
            taxPercentage: 25,
          },
        ],
        paymentMeans: { code: '31', accountId: '4400116243', bic: '5000' },
      },
      'DKK',
    ),
  },
  {
    name: 'DE-DE-S-19-7',
    body: matrixBody(
      DE,
      DE2,
      [
        line(1, { quantity: 3, price: 33.33, category: 'S', rate: 19 }),
        line(2, { quantity: 1, price: 12.5, category: 'S', rate: 7 }),
      ],
      {
        buyerReference: '04011000-12345-03',
        paymentMeans: {
          code: '58',
          accountId: 'DE75512108001245126199',
          accountName: 'Muster GmbH',
        },
      },
    ),
  },
  {
    name: 'NL-NL-S-21-9-with-prepaid',
    body: matrixBody(
      NL,
      NL2,
      [
        line(1, { quantity: 2, price: 100, category: 'S', rate: 21 }),
        line(2, { quantity: 5, price: 4.2, category: 'S', rate: 9 }),
      ],
      {
        prepaidAmount: 50,
        paymentMeans: { code: '30', accountId: 'NL91ABNA0417164300' },
      },
    ),
  },
  {
    name: 'NL-NL-credit-note-with-billing-reference',
    body: matrixBody(NL, NL2, [line(1, { quantity: 1, price: 100, category: 'S', rate: 21 })], {
      documentType: 'CreditNote',
      billingReference: { invoiceNo: 'M-0', issueDate: '2026-02-01' },
    }),
  },
  {
    name: 'BE-FR-Z',
    body: matrixBody(BE, FR, [
      line(1, { quantity: 12, price: 3.1, category: 'zeroRated', rate: 0 }),
    ]),
  },
  {
    name: 'FR-FR-E-exempt',
    body: matrixBody(
      FR,
      { ...FR, identifier: '0009:98765432100019', name: 'Clinique SA', vatNumber: 'FR98765432101' },
      [
        {
          ...line(1, { quantity: 1, price: 500, category: 'E', rate: 0 }),
          taxExemptionReasonCode: 'VATEX-EU-132-1B',
          taxExemptionReason: 'Hospital care',
        },
      ],
    ),
  },
  {
    name: 'SE-DK-AE-reverse-charge',
    body: matrixBody(
      SE,
      DK,
      [line(1, { quantity: 40, price: 25, category: 'reverseCharge', rate: 0 })],
      {},
      'SEK',
    ),
  },
  {
    name: 'DE-NL-K-intra-community',
    body: matrixBody(
      DE,
      NL,
      [line(1, { quantity: 100, price: 7.25, category: 'intraCommunity', rate: 0 })],
      {
        delivery: { date: '2026-02-27', address: address('NL', 'Rotterdam', '3011 AA') },
      },
    ),
  },
  {
    name: 'NO-US-G-export',
    body: matrixBody(
      NO,
      US,
      [line(1, { quantity: 2, price: 1999, category: 'export', rate: 0 })],
      {},
      'USD',
    ),
  },
  {
    name: 'NO-NO-O-not-subject',
    body: matrixBody(
      { ...NO, name: 'Forening for Fjellturer' },
      { identifier: NO2.identifier, name: NO2.name, address: NO2.address },
      [line(1, { quantity: 1, price: 350, category: 'notSubjectToVat', rate: 0 })],
      {},
      'NOK',
    ),
  },
  {
    name: 'ES-ES-L-canary-islands',
    body: matrixBody(
      ES,
      { ...ES, identifier: '9920:ESA87654321', name: 'Tenerife SA', vatNumber: 'ESA87654321' },
      [
        line(1, { quantity: 5, price: 20, category: 'L', rate: 7 }),
        line(2, { quantity: 1, price: 80, category: 'L', rate: 0 }),
      ],
    ),
  },
  {
    name: 'ES-ES-M-ceuta',
    body: matrixBody(
      ES,
      { ...ES, identifier: '9920:ESA87654321', name: 'Ceuta SA', vatNumber: 'ESA87654321' },
      [line(1, { quantity: 3, price: 15, category: 'ceutaMelilla', rate: 10 })],
    ),
  },
  {
    name: 'NO-SE-mixed-S-Z-E-given-breakdown',
    body: matrixBody(
      NO,
      SE,
      [
        S25(1),
        line(2, { quantity: 1, price: 80, category: 'Z', rate: 0 }),
        {
          ...line(3, { quantity: 2, price: 45, category: 'E', rate: 0 }),
          taxExemptionReason: 'Exempt financial service',
        },
      ],
      {
        taxBreakdown: [
          { taxCategoryType: 'S', taxPercentage: 25, taxableAmount: 300, taxAmount: 75 },
          { taxCategoryType: 'Z', taxPercentage: 0, taxableAmount: 80, taxAmount: 0 },
          {
            taxCategoryType: 'E',
            taxPercentage: 0,
            taxableAmount: 90,
            taxAmount: 0,
            taxExemptionReason: 'Exempt financial service',
          },
        ],
        delivery: {
          date: '2026-02-28',
          name: 'Svea Lager',
          address: address('SE', 'Göteborg', '411 01'),
        },
        note: 'Mixed delivery',
      },
      'NOK',
    ),
  },
  {
    name: 'NO-NO-credit-note-body-allowance-percentage',
    body: matrixBody(
      NO,
      NO2,
      [S25(1, 4, 250)],
      {
        documentType: 'CreditNote',
        billingReference: { invoiceNo: 'INV-77' },
        allowanceCharges: [
          {
            chargeIndicator: false,
            amount: 100,
            baseAmount: 1000,
            percentage: 10,
            reasonCode: '95',
            taxCategoryType: 'S',
            taxPercentage: 25,
          },
        ],
      },
      'NOK',
    ),
  },
];

/** The matrix rendered: one UBL document a case. */
export function peppolMatrix(): { name: string; xml: string }[] {
  return MATRIX.map((c) => ({
    name: c.name,
    xml: renderUblInvoice(c.body, c.document === undefined ? {} : { document: c.document }),
  }));
}

/** A body that breaks one fatal rule, and the rule's id. */
export interface BrokenCase {
  name: string;
  body: Record<string, unknown>;
  rule: string;
  /**
   * False when the rendered document cannot carry the defect, so the official rules cannot
   * see it: the simulator refuses the body before it is rendered.
   */
  official: boolean;
}

const NOK = (lines: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
  matrixBody(NO, NO2, lines, extra, 'NOK');
const withLine = (overrides: Record<string, unknown>) => NOK([{ ...S25(1), ...overrides }]);

/** The issue's twelve refusals and more: each body breaks exactly the rule it names. */
export const BROKEN: readonly BrokenCase[] = [
  {
    name: 'line net not quantity x price',
    rule: 'PEPPOL-EN16931-R120',
    official: true,
    body: withLine({ taxableAmount: 310, taxAmount: 77.5 }),
  },
  {
    name: 'line tax not net x rate',
    rule: 'BR-CO-17',
    official: true,
    body: withLine({ taxAmount: 70 }),
  },
  {
    name: 'standard-rated tax not net x rate',
    rule: 'BR-S-09',
    official: true,
    body: withLine({ taxAmount: 80 }),
  },
  {
    name: 'three-decimal line amount',
    rule: 'BR-DEC-23',
    official: false,
    body: withLine({
      quantity: 1,
      unitPriceAmount: 10.125,
      taxableAmount: 10.125,
      taxAmount: 2.53,
    }),
  },
  {
    name: 'currency ABC',
    rule: 'BR-CL-04',
    official: true,
    body: matrixBody(NO, NO2, [S25(1)], {}, 'ABC'),
  },
  {
    name: 'VAT category X',
    rule: 'BR-CL-18',
    official: true,
    body: withLine({ taxCategoryType: 'X' }),
  },
  {
    name: 'category Z at 25%',
    rule: 'BR-Z-05',
    official: true,
    body: withLine({ taxCategoryType: 'Z', taxAmount: 0 }),
  },
  {
    name: 'negative unit price',
    rule: 'BR-27',
    official: true,
    body: withLine({ quantity: -2, unitPriceAmount: -150 }),
  },
  {
    name: 'country XX',
    rule: 'BR-CL-14',
    official: true,
    body: matrixBody({ ...NO, address: address('XX', 'Oslo', '0155') }, NO2, [S25(1)], {}, 'NOK'),
  },
  {
    name: 'endpoint scheme 9999',
    rule: 'BR-CL-25',
    official: true,
    body: matrixBody(NO, { ...NO2, identifier: '9999:12345' }, [S25(1)], {}, 'NOK'),
  },
  {
    name: 'VAT number without its country prefix',
    rule: 'BR-CO-09',
    official: true,
    body: matrixBody(
      { ...FR, vatNumber: '12345678901' },
      BE,
      [line(1, { quantity: 1, price: 100, category: 'S', rate: 20 })],
      {},
      'EUR',
    ),
  },
  {
    name: 'unit that is neither a code nor a known word',
    rule: 'BR-CL-23',
    official: true,
    body: withLine({ unitOfMeasure: { unit: 'kilo' } }),
  },
  {
    name: 'unit code in lower case',
    rule: 'BR-CL-23',
    official: true,
    body: withLine({ unitOfMeasure: { unit: 'kgm' } }),
  },
  {
    name: 'neither order nor buyer reference',
    rule: 'PEPPOL-EN16931-R003',
    official: true,
    body: NOK([S25(1)], { orderReference: null }),
  },
  {
    name: 'Norwegian organisation number with a wrong check digit',
    rule: 'PEPPOL-COMMON-R041',
    official: true,
    body: matrixBody(NO, { ...NO2, identifier: '0192:123456789' }, [S25(1)], {}, 'NOK'),
  },
  {
    name: 'Swedish VAT number of 13 characters',
    rule: 'SE-R-001',
    official: true,
    body: matrixBody({ ...SE, vatNumber: 'SE55600000011' }, NO2, [S25(1)], {}, 'SEK'),
  },
  {
    name: 'intra-community supply without delivery',
    rule: 'BR-IC-11',
    official: true,
    body: matrixBody(DE, NL, [line(1, { quantity: 1, price: 100, category: 'K', rate: 0 })]),
  },
  {
    name: 'not subject to VAT mixed with standard rated',
    rule: 'BR-O-11',
    official: true,
    body: matrixBody(
      NO,
      { ...US },
      [S25(1), line(2, { quantity: 1, price: 10, category: 'O', rate: 0 })],
      {},
      'NOK',
    ),
  },
  {
    name: 'allowance without a reason',
    rule: 'BR-33',
    official: true,
    body: NOK([S25(1)], {
      allowanceCharges: [
        { chargeIndicator: false, amount: 10, taxCategoryType: 'S', taxPercentage: 25 },
      ],
    }),
  },
  {
    name: 'direct debit without a mandate',
    rule: 'PEPPOL-EN16931-R061',
    official: true,
    body: NOK([S25(1)], { paymentMeans: { code: '59', payerAccountId: 'NO9386011117947' } }),
  },
  {
    name: 'Danish supplier without its CVR number',
    rule: 'DK-R-002',
    official: true,
    body: matrixBody(
      { identifier: DK.identifier, name: DK.name, vatNumber: DK.vatNumber, address: DK.address },
      NO2,
      [S25(1)],
      {},
      'DKK',
    ),
  },
];
