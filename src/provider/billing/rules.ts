/**
 * The EN 16931 and Peppol BIS Billing 3.0 business rules the simulator checks, with their
 * real identifiers and severities: every rule here is fatal in the official rule sets, so a
 * body an access point would refuse is refused here with the same rule id. One warning is
 * the simulator's own, SIM-IL-03: a line's tax amount that is not its net amount x rate. Which rules are
 * checked, and which are not: docs/peppol.md#validation.
 *
 * The rules run on the document as it will be written (billing-document.ts), and report
 * locations as XPaths into it. A value the body lacks is the mandatory-element check's
 * (invoice-validation.ts), so a rule whose input is missing stays silent.
 */
import type { ValidationResult } from '../../protocol/index.ts';
import type {
  BillingAllowanceCharge,
  BillingDocument,
  BillingLine,
  BillingParty,
  TaxGroup,
} from './billing-document.ts';
import { taxOf, toCents } from './billing-document.ts';
import {
  CATEGORY_RULE_PREFIX,
  IDENTIFIER_CHECKS,
  inCodeList,
  TAX_CATEGORY_WORDS,
  UNIT_WORDS,
  ZERO_RATED_CATEGORIES,
} from './codes.ts';

/** Invoice type codes Peppol's billing profile allows (PEPPOL-EN16931-P0100, P0101). */
const PEPPOL_TYPE_CODES = {
  Invoice: new Set(
    '71 80 82 84 102 218 219 326 331 380 382 383 384 386 388 393 395 553 575 623 780 817 870 875 876 877'.split(
      ' ',
    ),
  ),
  CreditNote: new Set(['381', '396', '81', '83', '532']),
};

const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** More than two decimals: 0.125, but not 0.1 + 0.2. */
const overTwoDecimals = (value: number) => Math.abs(value * 100 - Math.round(value * 100)) > 1e-6;

/** One currency unit in cents: the tolerance of the breakdown rules (BR-CO-17, BR-S-08). */
const ONE_UNIT = 100;

export function checkBusinessRules(doc: BillingDocument): ValidationResult[] {
  const results: ValidationResult[] = [];
  const root = `/${doc.documentType}`;
  const lineElement = doc.documentType === 'CreditNote' ? 'cac:CreditNoteLine' : 'cac:InvoiceLine';
  const fail = (code: string, message: string, location: string): void => {
    results.push({ type: 'error', code, message, location });
  };
  const supplierAt = `${root}/cac:AccountingSupplierParty/cac:Party`;
  const customerAt = `${root}/cac:AccountingCustomerParty/cac:Party`;
  const supplierCountry = doc.supplier.address?.country;
  const customerCountry = doc.customer.address?.country;
  const categories = new Set(doc.derivedGroups.map((g) => g.categoryCode));

  // Document
  const typeCodes = PEPPOL_TYPE_CODES[doc.documentType];
  if (!typeCodes.has(doc.typeCode)) {
    const code =
      doc.documentType === 'CreditNote' ? 'PEPPOL-EN16931-P0101' : 'PEPPOL-EN16931-P0100';
    fail(
      code,
      `Type code ${doc.typeCode} is not one Peppol allows for a ${doc.documentType}: ${[...typeCodes].join(', ')}`,
      `${root}/cbc:${doc.documentType}TypeCode`,
    );
  }
  if (doc.currency !== undefined && !inCodeList('CURRENCY', doc.currency)) {
    fail(
      'BR-CL-04',
      `Currency ${doc.currency} is not an ISO 4217 code`,
      `${root}/cbc:DocumentCurrencyCode`,
    );
  }
  const dates: [string, string | undefined, string][] = [
    ['dueDate', doc.dueDate, `${root}/cbc:DueDate`],
    ['delivery.date', doc.delivery?.date, `${root}/cac:Delivery/cbc:ActualDeliveryDate`],
    [
      'billingReference.issueDate',
      doc.billingReference?.issueDate,
      `${root}/cac:BillingReference/cac:InvoiceDocumentReference/cbc:IssueDate`,
    ],
  ];
  for (const [name, value, location] of dates) {
    if (value !== undefined && !(CALENDAR_DATE.test(value) && !Number.isNaN(Date.parse(value)))) {
      fail(
        'schema',
        `${name} must be a calendar date (YYYY-MM-DD), got ${JSON.stringify(value)}`,
        location,
      );
    }
  }
  if (doc.billingReference !== undefined && doc.billingReference.invoiceNo === undefined) {
    fail(
      'BR-55',
      'A billing reference must name the preceding invoice (billingReference.invoiceNo)',
      `${root}/cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID`,
    );
  }
  if (doc.prepaidAmount !== undefined && overTwoDecimals(doc.prepaidAmount)) {
    fail(
      'BR-DEC-16',
      `prepaidAmount ${doc.prepaidAmount} has more than 2 decimals`,
      `${root}/cac:LegalMonetaryTotal/cbc:PrepaidAmount`,
    );
  }

  // Parties
  checkParty(doc.supplier, supplierAt, 'supplier', fail);
  checkParty(doc.customer, customerAt, 'customer', fail);
  if (doc.delivery?.address !== undefined) {
    const country = doc.delivery.address.country;
    const at = `${root}/cac:Delivery/cac:DeliveryLocation/cac:Address/cac:Country/cbc:IdentificationCode`;
    if (country === undefined) fail('BR-57', 'A delivery address must have a country code', at);
    else if (!inCodeList('COUNTRY', country))
      fail('BR-CL-14', `Country ${country} is not an ISO 3166-1 alpha-2 code`, at);
  }
  const supplierVat = `${supplierAt}/cac:PartyTaxScheme/cbc:CompanyID`;
  const vat = doc.supplier.vatNumber;
  if (supplierCountry === 'NO' && vat?.startsWith('NO') && !/^NO\d{9}MVA$/.test(vat)) {
    fail(
      'NO-R-001',
      `A Norwegian supplier's VAT number is NO, nine digits and MVA, got ${vat}`,
      supplierVat,
    );
  } else if (
    supplierCountry === 'NO' &&
    vat?.startsWith('NO') &&
    !IDENTIFIER_CHECKS['0192']?.valid(vat.slice(2, 11))
  ) {
    fail(
      'NO-R-001',
      `The organisation number in VAT number ${vat} has a wrong check digit`,
      supplierVat,
    );
  }
  if (supplierCountry === 'SE' && vat?.startsWith('SE')) {
    if (vat.length !== 14)
      fail('SE-R-001', `A Swedish VAT number has 14 characters, got ${vat}`, supplierVat);
    if (!/^\d+$/.test(vat.slice(2, 14)))
      fail('SE-R-002', `A Swedish VAT number ends in 12 digits, got ${vat}`, supplierVat);
    for (const g of doc.derivedGroups) {
      if (g.categoryCode === 'S' && ![25, 12, 6].includes(g.rate)) {
        fail(
          'SE-R-006',
          `Swedish suppliers use the standard rates 25, 12 or 6, got ${g.rate}`,
          `${root}/cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory/cbc:Percent`,
        );
      }
    }
  }
  const registration = doc.supplier.legalRegistration;
  const registrationAt = `${supplierAt}/cac:PartyLegalEntity/cbc:CompanyID`;
  if (supplierCountry === 'DK') {
    if (registration === undefined)
      fail(
        'DK-R-002',
        'Danish suppliers must give their CVR number (supplier.legalRegistration)',
        registrationAt,
      );
    else if (registration.schemeId !== '0184')
      fail(
        'DK-R-014',
        "A Danish supplier's legal registration has scheme 0184 (CVR)",
        registrationAt,
      );
  }
  if (
    supplierCountry === 'SE' &&
    registration !== undefined &&
    !(
      /^\d{10}$/.test(registration.id) && IDENTIFIER_CHECKS['0007']?.valid(registration.id) === true
    )
  ) {
    fail(
      'SE-R-013',
      `A Swedish organisation number has 10 digits and a Luhn check digit, got ${registration.id}`,
      registrationAt,
    );
  }
  if (supplierCountry === 'NL') {
    if (registration !== undefined && !['0106', '0190'].includes(registration.schemeId ?? '')) {
      fail(
        'NL-R-003',
        "A Dutch supplier's legal registration is a KVK or OIN number (scheme 0106 or 0190)",
        registrationAt,
      );
    }
    const customerRegistration = doc.customer.legalRegistration;
    if (
      customerCountry === 'NL' &&
      customerRegistration !== undefined &&
      !['0106', '0190'].includes(customerRegistration.schemeId ?? '')
    ) {
      fail(
        'NL-R-005',
        "A Dutch customer's legal registration is a KVK or OIN number (scheme 0106 or 0190)",
        `${customerAt}/cac:PartyLegalEntity/cbc:CompanyID`,
      );
    }
    if (doc.documentType === 'CreditNote' && doc.billingReference === undefined) {
      fail(
        'NL-R-001',
        "A Dutch supplier's credit note names the invoice it corrects (billingReference)",
        `${root}/cac:BillingReference`,
      );
    }
    const owed =
      doc.documentType === 'Invoice' ? doc.totals.payableCents > 0 : doc.totals.payableCents < 0;
    if (owed && doc.paymentMeans === undefined) {
      fail(
        'NL-R-007',
        'A Dutch supplier gives a means of payment (paymentMeans)',
        `${root}/cac:PaymentMeans`,
      );
    }
    if (
      customerCountry === 'NL' &&
      doc.paymentMeans?.code !== undefined &&
      !['30', '48', '49', '57', '58', '59'].includes(doc.paymentMeans.code)
    ) {
      fail(
        'NL-R-008',
        'Between Dutch parties the payment means code is 30, 48, 49, 57, 58 or 59',
        `${root}/cac:PaymentMeans/cbc:PaymentMeansCode`,
      );
    }
  }
  if (supplierCountry === 'DK' && customerCountry === 'DK' && doc.documentType === 'Invoice') {
    const means = doc.paymentMeans;
    const at = `${root}/cac:PaymentMeans`;
    const allowed = ['1', '10', '31', '42', '48', '49', '50', '58', '59', '93', '97'];
    if (means?.code !== undefined && !allowed.includes(means.code)) {
      fail(
        'DK-R-005',
        `Between Danish parties the payment means code is one of ${allowed.join(', ')}`,
        `${at}/cbc:PaymentMeansCode`,
      );
    }
    if (
      (means?.code === '31' || means?.code === '42') &&
      (means.accountId === undefined || means.bic === undefined)
    ) {
      fail(
        'DK-R-006',
        'Between Danish parties payment means 31 and 42 need the account (paymentMeans.accountId) and its registration number (paymentMeans.bic)',
        `${at}/cac:PayeeFinancialAccount`,
      );
    }
  }
  if (supplierCountry === 'DE' && customerCountry === 'DE') {
    if (doc.paymentMeans === undefined)
      fail(
        'DE-R-001',
        'Between German parties the invoice gives payment instructions (paymentMeans)',
        `${root}/cac:PaymentMeans`,
      );
    if (doc.buyerReference === undefined)
      fail(
        'DE-R-015',
        'Between German parties the buyer reference (Leitweg-ID) is mandatory',
        `${root}/cbc:BuyerReference`,
      );
    const contact = doc.supplier.contact;
    const contactAt = `${supplierAt}/cac:Contact`;
    if (contact === undefined)
      fail(
        'DE-R-002',
        'Between German parties the seller contact is mandatory (supplier.contact)',
        contactAt,
      );
    else {
      if (contact.name === undefined)
        fail('DE-R-005', 'The seller contact needs a name', `${contactAt}/cbc:Name`);
      if (contact.telephone === undefined)
        fail(
          'DE-R-006',
          'The seller contact needs a telephone number',
          `${contactAt}/cbc:Telephone`,
        );
      if (contact.email === undefined)
        fail(
          'DE-R-007',
          'The seller contact needs an e-mail address',
          `${contactAt}/cbc:ElectronicMail`,
        );
    }
  }

  // VAT categories and the parties they need
  if (categories.has('O')) {
    if (categories.size > 1)
      fail(
        'BR-O-11',
        'An invoice with category O (not subject to VAT) has no other VAT category',
        `${root}/cac:TaxTotal/cac:TaxSubtotal`,
      );
    if (doc.customer.vatNumber !== undefined)
      fail(
        'BR-O-02',
        'An invoice with category O has no buyer VAT number',
        `${customerAt}/cac:PartyTaxScheme/cbc:CompanyID`,
      );
    // The supplier's VAT number is left out of such a document (BR-O-02), so it needs another identifier.
    const scheme = doc.supplier.endpoint?.scheme;
    if (
      registration === undefined &&
      !(scheme !== undefined && inCodeList('IDENTIFIER_SCHEME', scheme))
    ) {
      fail(
        'BR-CO-26',
        'A supplier without VAT number needs a legal registration (supplier.legalRegistration) or an identifier with an ICD scheme',
        `${supplierAt}/cac:PartyLegalEntity/cbc:CompanyID`,
      );
    }
  }
  if (
    categories.has('AE') &&
    doc.customer.vatNumber === undefined &&
    doc.customer.legalRegistration === undefined
  ) {
    fail(
      'BR-AE-02',
      "Reverse charge (AE) needs the buyer's VAT number or legal registration",
      `${customerAt}/cac:PartyTaxScheme/cbc:CompanyID`,
    );
  }
  if (categories.has('K')) {
    if (doc.customer.vatNumber === undefined)
      fail(
        'BR-IC-02',
        "An intra-community supply (K) needs the buyer's VAT number",
        `${customerAt}/cac:PartyTaxScheme/cbc:CompanyID`,
      );
    if (doc.delivery?.date === undefined)
      fail(
        'BR-IC-11',
        'An intra-community supply (K) needs the delivery date (delivery.date)',
        `${root}/cac:Delivery/cbc:ActualDeliveryDate`,
      );
    if (doc.delivery?.address?.country === undefined)
      fail(
        'BR-IC-12',
        'An intra-community supply (K) needs the deliver-to country (delivery.address.countryCode)',
        `${root}/cac:Delivery/cac:DeliveryLocation/cac:Address/cac:Country/cbc:IdentificationCode`,
      );
  }

  // Lines
  for (const line of doc.lines)
    checkLine(line, `${root}/${lineElement}[${line.number}]`, fail, results);

  // Allowances and charges
  for (const a of doc.allowanceCharges) {
    checkAllowanceCharge(a, `${root}/cac:AllowanceCharge[${a.number}]`, fail);
  }

  // Payment
  const means = doc.paymentMeans;
  if (means !== undefined) {
    const at = `${root}/cac:PaymentMeans`;
    if (means.code === undefined)
      fail('BR-49', 'A payment means has a code (paymentMeans.code)', `${at}/cbc:PaymentMeansCode`);
    else if (!inCodeList('PAYMENT_MEANS', means.code))
      fail(
        'BR-CL-16',
        `Payment means ${means.code} is not a UNCL 4461 code`,
        `${at}/cbc:PaymentMeansCode`,
      );
    if ((means.code === '30' || means.code === '58') && means.accountId === undefined) {
      fail(
        'BR-61',
        'A credit transfer names the account to pay to (paymentMeans.accountId)',
        `${at}/cac:PayeeFinancialAccount/cbc:ID`,
      );
    }
    if ((means.code === '49' || means.code === '59') && means.mandateId === undefined) {
      fail(
        'PEPPOL-EN16931-R061',
        'A direct debit names its mandate (paymentMeans.mandateId)',
        `${at}/cac:PaymentMandate/cbc:ID`,
      );
    }
  }

  checkBreakdown(doc, `${root}/cac:TaxTotal/cac:TaxSubtotal`, fail);
  return results;
}

type Fail = (code: string, message: string, location: string) => void;

function checkParty(party: BillingParty, at: string, role: 'supplier' | 'customer', fail: Fail) {
  const endpoint = party.endpoint;
  if (endpoint !== undefined) {
    if (!inCodeList('ELECTRONIC_ADDRESS_SCHEME', endpoint.scheme)) {
      fail(
        'BR-CL-25',
        `${role}.identifier scheme ${endpoint.scheme} is not an EAS code`,
        `${at}/cbc:EndpointID/@schemeID`,
      );
    }
    const check = IDENTIFIER_CHECKS[endpoint.scheme];
    if (check !== undefined && !check.valid(endpoint.id)) {
      fail(
        check.rule,
        `${role}.identifier ${endpoint.scheme}:${endpoint.id} is not a valid number of its scheme`,
        `${at}/cbc:EndpointID`,
      );
    }
  }
  const registration = party.legalRegistration;
  if (registration?.schemeId !== undefined) {
    if (!inCodeList('IDENTIFIER_SCHEME', registration.schemeId)) {
      fail(
        'BR-CL-11',
        `${role}.legalRegistration scheme ${registration.schemeId} is not an ISO 6523 ICD code`,
        `${at}/cac:PartyLegalEntity/cbc:CompanyID/@schemeID`,
      );
    }
    const check = IDENTIFIER_CHECKS[registration.schemeId];
    if (check !== undefined && !check.valid(registration.id)) {
      fail(
        check.rule,
        `${role}.legalRegistration ${registration.id} is not a valid number of scheme ${registration.schemeId}`,
        `${at}/cac:PartyLegalEntity/cbc:CompanyID`,
      );
    }
  }
  const country = party.address?.country;
  if (country !== undefined && !inCodeList('COUNTRY', country)) {
    fail(
      'BR-CL-14',
      `${role}.address.countryCode ${country} is not an ISO 3166-1 alpha-2 code`,
      `${at}/cac:PostalAddress/cac:Country/cbc:IdentificationCode`,
    );
  }
  const vat = party.vatNumber;
  if (vat !== undefined && !(inCodeList('COUNTRY', vat.slice(0, 2)) || vat.startsWith('EL'))) {
    fail(
      'BR-CO-09',
      `${role}.vatNumber ${vat} does not start with its country's ISO 3166-1 code`,
      `${at}/cac:PartyTaxScheme/cbc:CompanyID`,
    );
  }
}

/** The line rules: codes, decimals, the net amount, the category's rate. */
function checkLine(line: BillingLine, at: string, fail: Fail, results: ValidationResult[]) {
  if (line.unit !== undefined && line.unitCode === undefined) {
    fail(
      'BR-CL-23',
      `Unit ${line.unit} is neither a UN/ECE Recommendation 20 code nor one of the words ${Object.keys(UNIT_WORDS).join(', ')}`,
      `${at}/cbc:InvoicedQuantity/@unitCode`,
    );
  }
  checkCategory(line, `${at}/cac:Item/cac:ClassifiedTaxCategory`, '05', fail);
  if (line.net !== undefined && overTwoDecimals(line.net)) {
    fail(
      'BR-DEC-23',
      `taxableAmount ${line.net} has more than 2 decimals`,
      `${at}/cbc:LineExtensionAmount`,
    );
  }
  if (line.price !== undefined && line.price < 0) {
    fail('BR-27', `unitPriceAmount ${line.price} is negative`, `${at}/cac:Price/cbc:PriceAmount`);
  }
  if (line.quantity !== undefined && line.price !== undefined && line.net !== undefined) {
    const expected = line.quantity * line.price;
    if (Math.abs(line.net - expected) > 0.02 + 1e-9) {
      fail(
        'PEPPOL-EN16931-R120',
        `taxableAmount ${line.net} is not quantity x unit price (${expected})`,
        `${at}/cbc:LineExtensionAmount`,
      );
    }
  }
  const code = line.categoryCode;
  // The simulator's own check, a warning: no document element carries a line's tax, so no
  // published rule checks it; the breakdown it adds up to is held to BR-CO-17.
  const netCents = toCents(line.net);
  if (code !== undefined && !ZERO_RATED_CATEGORIES.has(code) && netCents !== undefined) {
    const taxCents = toCents(line.taxAmount);
    const expected = line.rate === undefined ? undefined : taxOf(netCents, line.rate);
    if (taxCents !== undefined && expected !== undefined && taxCents !== expected) {
      results.push({
        type: 'warning',
        code: 'SIM-IL-03',
        message: `Tax amount ${line.taxAmount} differs from taxable amount x rate (${(expected / 100).toFixed(2)})`,
        location: `${at}/cbc:LineExtensionAmount`,
      });
    }
  }
  const exempt = line.exemptionCode !== undefined || line.exemptionText !== undefined;
  if (exempt && code !== undefined && !ZERO_RATED_CATEGORIES.has(code)) {
    fail(
      `BR-${CATEGORY_RULE_PREFIX[code]}-10`,
      `Category ${code} has no VAT exemption reason`,
      `${at}/cac:Item/cac:ClassifiedTaxCategory`,
    );
  }
  if (
    line.exemptionCode !== undefined &&
    !inCodeList('VAT_EXEMPTION_REASON', line.exemptionCode.toUpperCase())
  ) {
    fail(
      'BR-CL-22',
      `Exemption reason ${line.exemptionCode} is not a VATEX code`,
      `${at}/cac:Item/cac:ClassifiedTaxCategory`,
    );
  }
}

/**
 * A category code and the rate it allows: S more than 0, L and M at least 0, O none (given
 * as 0), the others 0. `ruleSuffix` is 05 for lines, 06 for allowances, 07 for charges.
 */
function checkCategory(
  item: Pick<BillingLine, 'category' | 'categoryCode' | 'rate'>,
  at: string,
  ruleSuffix: string,
  fail: Fail,
) {
  if (item.category !== undefined && item.categoryCode === undefined) {
    fail(
      'BR-CL-18',
      `Tax category ${item.category} is neither a UNCL 5305 code nor one of the words ${Object.keys(TAX_CATEGORY_WORDS).join(', ')}`,
      `${at}/cbc:ID`,
    );
    return;
  }
  const code = item.categoryCode;
  const rate = item.rate;
  if (code === undefined || rate === undefined) return;
  const rule = `BR-${CATEGORY_RULE_PREFIX[code]}-${ruleSuffix}`;
  if (code === 'S' && !(rate > 0))
    fail(rule, `Category S (standard rated) has a rate above 0, got ${rate}`, `${at}/cbc:Percent`);
  else if ((code === 'L' || code === 'M') && rate < 0)
    fail(rule, `Category ${code} has a rate of 0 or more, got ${rate}`, `${at}/cbc:Percent`);
  else if (ZERO_RATED_CATEGORIES.has(code) && rate !== 0)
    fail(rule, `Category ${code} has the rate 0, got ${rate}`, `${at}/cbc:Percent`);
}

function checkAllowanceCharge(a: BillingAllowanceCharge, at: string, fail: Fail) {
  const kind = a.charge ? 'charge' : 'allowance';
  if (a.amount === undefined)
    fail(
      a.charge ? 'BR-36' : 'BR-31',
      `A document-level ${kind} has an amount`,
      `${at}/cbc:Amount`,
    );
  else if (overTwoDecimals(a.amount))
    fail(
      a.charge ? 'BR-DEC-24' : 'BR-DEC-01',
      `The ${kind} amount ${a.amount} has more than 2 decimals`,
      `${at}/cbc:Amount`,
    );
  if (a.category === undefined)
    fail(
      a.charge ? 'BR-37' : 'BR-32',
      `A document-level ${kind} has a VAT category (taxCategoryType)`,
      `${at}/cac:TaxCategory/cbc:ID`,
    );
  checkCategory(a, `${at}/cac:TaxCategory`, a.charge ? '07' : '06', fail);
  if (a.reason === undefined && a.reasonCode === undefined) {
    fail(
      a.charge ? 'BR-38' : 'BR-33',
      `A document-level ${kind} has a reason or a reason code`,
      `${at}/cbc:AllowanceChargeReason`,
    );
  }
  if (a.reasonCode !== undefined) {
    const list = a.charge ? 'CHARGE_REASON' : 'ALLOWANCE_REASON';
    if (!inCodeList(list, a.reasonCode)) {
      fail(
        a.charge ? 'BR-CL-20' : 'BR-CL-19',
        `Reason code ${a.reasonCode} is not a ${a.charge ? 'UNCL 7161' : 'UNCL 5189'} code`,
        `${at}/cbc:AllowanceChargeReasonCode`,
      );
    }
  }
  if (a.percentage !== undefined && a.baseAmount === undefined)
    fail(
      'PEPPOL-EN16931-R041',
      `A ${kind} with a percentage has a base amount`,
      `${at}/cbc:BaseAmount`,
    );
  if (a.baseAmount !== undefined && a.percentage === undefined)
    fail(
      'PEPPOL-EN16931-R042',
      `A ${kind} with a base amount has a percentage`,
      `${at}/cbc:MultiplierFactorNumeric`,
    );
  if (a.baseAmount !== undefined && a.percentage !== undefined && a.amount !== undefined) {
    const expected = (a.baseAmount * a.percentage) / 100;
    if (Math.abs(a.amount - expected) > 0.02 + 1e-9) {
      fail(
        'PEPPOL-EN16931-R040',
        `The ${kind} amount ${a.amount} is not base amount x percentage (${expected})`,
        `${at}/cbc:Amount`,
      );
    }
  }
}

/**
 * The VAT breakdown: the tax the sender's lines add up to must be the category's taxable
 * amount times its rate within one currency unit (BR-CO-17, and BR-S-09 and its kin), or 0
 * for the zero-rated categories; a breakdown the body gives must match the lines (BR-S-08
 * and its kin) and its own rate.
 */
function checkBreakdown(doc: BillingDocument, at: string, fail: Fail) {
  const taxRule = (code: string) => `BR-${CATEGORY_RULE_PREFIX[code]}-09`;
  const checkTax = (g: TaxGroup, taxCents: number, what: string) => {
    if (ZERO_RATED_CATEGORIES.has(g.categoryCode)) {
      if (taxCents !== 0)
        fail(
          taxRule(g.categoryCode),
          `Category ${g.categoryCode} has no VAT, but ${what} add up to ${taxCents / 100}`,
          `${at}/cbc:TaxAmount`,
        );
      return;
    }
    const expected = taxOf(g.taxableCents, g.rate);
    if (Math.abs(taxCents - expected) >= ONE_UNIT) {
      const message = `${what} of category ${g.categoryCode} at ${g.rate}% add up to ${taxCents / 100}, not taxable amount ${g.taxableCents / 100} x rate (${expected / 100})`;
      fail('BR-CO-17', message, `${at}/cbc:TaxAmount`);
      if (['S', 'L', 'M'].includes(g.categoryCode))
        fail(taxRule(g.categoryCode), message, `${at}/cbc:TaxAmount`);
    }
  };
  if (!doc.breakdownGiven) {
    for (const g of doc.derivedGroups) checkTax(g, g.taxCents, "The lines' tax amounts");
    return;
  }
  for (const g of doc.groups) checkTax(g, g.taxCents, 'The taxBreakdown tax amounts');
  const key = (g: TaxGroup) => `${g.categoryCode}|${g.rate}`;
  const given = new Map(doc.groups.map((g) => [key(g), g]));
  const derived = new Map(doc.derivedGroups.map((g) => [key(g), g]));
  for (const k of new Set([...given.keys(), ...derived.keys()])) {
    const g = given.get(k);
    const d = derived.get(k);
    const code = (g ?? d)?.categoryCode ?? '';
    const tolerance = ZERO_RATED_CATEGORIES.has(code) ? 0 : ONE_UNIT - 1;
    if (
      g === undefined ||
      d === undefined ||
      Math.abs(g.taxableCents - d.taxableCents) > tolerance
    ) {
      const rate = (g ?? d)?.rate;
      fail(
        `BR-${CATEGORY_RULE_PREFIX[code]}-08`,
        `taxBreakdown's taxable amount of category ${code} at ${rate}% (${(g?.taxableCents ?? 0) / 100}) is not what its lines, allowances and charges add up to (${(d?.taxableCents ?? 0) / 100})`,
        `${at}/cbc:TaxableAmount`,
      );
    }
  }
}
