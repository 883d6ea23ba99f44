/**
 * The sandbox's scenario invoices are valid whichever two parties of its directory they are
 * between (issue 38): a Swedish participant's was refused by the simulator itself (SE-R-001,
 * its VAT number built as Norway's) and its core document answered 404. Every ordered pair
 * of SCENARIO_DIRECTORY (28 parties of 14 countries, so 756 invoices) goes through the real
 * admin and messaging APIs (test/support/scenario-documents.ts); the official Peppol rules
 * check the same documents in test/official/scenario-documents.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  SCENARIO_DIRECTORY,
  type ScenarioRun,
  scenarioDocuments,
} from '../../support/scenario-documents.ts';

/** The VAT number (BT-31, BT-48) each country's rules want, as it appears on the invoice. */
const VAT_FORMS: Readonly<Record<string, RegExp>> = {
  NO: /^NO\d{9}MVA$/,
  SE: /^SE\d{10}01$/,
  DK: /^DK\d{8}$/,
  FI: /^FI\d{8}$/,
  IS: /^IS\d{5,6}$/,
  DE: /^DE\d{9}$/,
  NL: /^NL\d{9}B\d{2}$/,
  BE: /^BE[01]\d{9}$/,
  FR: /^FR[0-9A-Z]{2}\d{9}$/,
  IT: /^IT\d{11}$/,
  ES: /^ES[A-Z0-9]\d{7}[A-Z0-9]$/,
  AT: /^ATU\d{8}$/,
  GR: /^EL\d{9}$/,
  US: /^US\d{9}$/,
};

/** The VAT identifier of the invoice's supplier or customer party. */
function vatNumber(xml: string, role: 'Supplier' | 'Customer'): string | undefined {
  const party = new RegExp(`<cac:Accounting${role}Party>([\\s\\S]*?)</cac:Accounting${role}Party>`);
  const scheme =
    /<cac:PartyTaxScheme><cbc:CompanyID>([^<]*)<\/cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</;
  return scheme.exec(party.exec(xml)?.[1] ?? '')?.[1];
}

describe('scenario invoices between every two parties of the directory', () => {
  let run: ScenarioRun;
  beforeAll(async () => {
    run = await scenarioDocuments();
  }, 120_000);

  it('creates one for every ordered pair, each sandbox knowing the whole directory', () => {
    const size = SCENARIO_DIRECTORY.length;
    expect(new Set(SCENARIO_DIRECTORY.map((p) => p.countryCode)).size).toBe(14);
    for (const known of run.directories.values()) expect(known).toHaveLength(size);
    expect(run.documents).toHaveLength(size * (size - 1));
    expect(new Set(run.documents.map((d) => d.name)).size).toBe(size * (size - 1));
  });

  it('has every one approved by the simulator, without a finding', () => {
    const refused = run.documents
      .filter((d) => d.validationStatus !== 'approved' || d.validationResults.length > 0)
      .map((d) => `${d.name}: ${d.validationStatus} ${JSON.stringify(d.validationResults)}`);
    expect(refused, refused.slice(0, 20).join('\n')).toEqual([]);
  });

  it('serves every core document to its receiver as a UBL invoice', () => {
    const unserved = run.documents
      .filter((d) => d.coreStatus !== 200 || !d.xml.includes('<Invoice xmlns='))
      .map((d) => `${d.name}: ${d.coreStatus} ${d.xml.slice(0, 200)}`);
    expect(unserved, unserved.slice(0, 20).join('\n')).toEqual([]);
  });

  it("gives the supplier its country's form of VAT number, and a Greek buyer of a Greek supplier", () => {
    const wrong = run.documents.flatMap((d) => {
      const supplier = vatNumber(d.xml, 'Supplier') ?? '(none)';
      const customer = vatNumber(d.xml, 'Customer');
      const greek = d.supplier.countryCode === 'GR' && d.customer.countryCode === 'GR';
      return [
        ...(VAT_FORMS[d.supplier.countryCode]?.test(supplier) ? [] : [`${d.name}: ${supplier}`]),
        ...(greek === (customer !== undefined && VAT_FORMS.GR?.test(customer) === true)
          ? []
          : [`${d.name}: buyer ${customer}`]),
      ];
    });
    expect(wrong, wrong.slice(0, 20).join('\n')).toEqual([]);
  });

  it("takes a Swedish party's VAT number from its organisation number", () => {
    const swedish = run.documents.filter((d) => d.supplier.identifier === '0007:5560000001');
    expect(swedish).toHaveLength(SCENARIO_DIRECTORY.length - 1);
    for (const d of swedish) expect(vatNumber(d.xml, 'Supplier')).toBe('SE556000000101');
  });
});
