/**
 * The national rules of Peppol BIS Billing 3.0 the simulator checks, for suppliers (and their
 * buyers) in Norway, Sweden, Denmark, the Netherlands and Germany: the official ids, all fatal.
 * Greece and Italy have their own rules too; the simulator does not check them
 * (docs/peppol.md#validation).
 */
import type { BillingDocument } from './billing-document.ts';
import { IDENTIFIER_CHECKS } from './codes.ts';
import type { Fail } from './rule-helpers.ts';

export function checkNationalRules(doc: BillingDocument, fail: Fail): void {
  const root = `/${doc.documentType}`;
  const supplierAt = `${root}/cac:AccountingSupplierParty/cac:Party`;
  const customerAt = `${root}/cac:AccountingCustomerParty/cac:Party`;
  const supplierCountry = doc.supplier.address?.country;
  const customerCountry = doc.customer.address?.country;

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
}
