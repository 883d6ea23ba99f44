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
import type { BillingDocument } from './billing-document.ts';
import { checkBreakdown } from './breakdown-rules.ts';
import { inCodeList } from './codes.ts';
import { checkAllowanceCharge, checkLine } from './line-rules.ts';
import { checkNationalRules } from './national-rules.ts';
import { checkParty } from './party-rules.ts';
import { overTwoDecimals } from './rule-helpers.ts';

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

export function checkBusinessRules(doc: BillingDocument): ValidationResult[] {
  const results: ValidationResult[] = [];
  const root = `/${doc.documentType}`;
  const lineElement = doc.documentType === 'CreditNote' ? 'cac:CreditNoteLine' : 'cac:InvoiceLine';
  const fail = (code: string, message: string, location: string): void => {
    results.push({ type: 'error', code, message, location });
  };
  const supplierAt = `${root}/cac:AccountingSupplierParty/cac:Party`;
  const customerAt = `${root}/cac:AccountingCustomerParty/cac:Party`;
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
  checkNationalRules(doc, fail);
  const registration = doc.supplier.legalRegistration;

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
