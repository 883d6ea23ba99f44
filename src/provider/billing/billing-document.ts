/**
 * A submit-invoice body read as an EN 16931 invoice or credit note: codes mapped (codes.ts),
 * amounts in cents, the VAT breakdown and the totals worked out as EN 16931 does, and the
 * simulator's defaults applied (docs/peppol.md#what-the-simulator-adds). The UBL renderer
 * (ubl-invoice.ts) writes it and the business rules (rules.ts) check it, so what is checked
 * is what is written.
 *
 * Total over any JSON object: a document the network let through with errors
 * (docs/events.md#documents-with-errors) may lack any element, and reads as undefined there.
 */
import { isPlainObject } from '../invoice.ts';
import { DEFAULT_EXEMPTION, taxCategoryCode, unitCode } from './codes.ts';

export type BillingDocumentType = 'Invoice' | 'CreditNote';

export interface BillingAddress {
  street?: string | undefined;
  additionalStreet?: string | undefined;
  city?: string | undefined;
  postalZone?: string | undefined;
  subentity?: string | undefined;
  country?: string | undefined;
}

export interface BillingParty {
  /** The network identifier split at its colon: the scheme (EAS) and the number. */
  endpoint?: { scheme: string; id: string } | undefined;
  name?: string | undefined;
  tradingName?: string | undefined;
  vatNumber?: string | undefined;
  /** BT-32: a tax registration other than VAT (Foretaksregisteret). */
  taxRegistrationId?: string | undefined;
  legalRegistration?: { id: string; schemeId?: string | undefined } | undefined;
  address?: BillingAddress | undefined;
  contact?:
    | { name?: string | undefined; telephone?: string | undefined; email?: string | undefined }
    | undefined;
}

export interface BillingLine {
  /** 1-based, as the line's cbc:ID. */
  number: number;
  itemNo?: string | undefined;
  buyersItemNo?: string | undefined;
  name?: string | undefined;
  description?: string | undefined;
  orderLineReference?: string | undefined;
  quantity?: number | undefined;
  /** The body's unit as sent, and its Recommendation 20 code when it has one. */
  unit?: string | undefined;
  unitCode?: string | undefined;
  price?: number | undefined;
  /** The line net amount as sent, and in cents. */
  net?: number | undefined;
  netCents?: number | undefined;
  /** The VAT category as sent, and its UNCL 5305 code when it has one. */
  category?: string | undefined;
  categoryCode?: string | undefined;
  rate?: number | undefined;
  taxAmount?: number | undefined;
  exemptionCode?: string | undefined;
  exemptionText?: string | undefined;
}

export interface BillingAllowanceCharge {
  /** 1-based position in the body's allowanceCharges. */
  number: number;
  charge: boolean;
  amount?: number | undefined;
  amountCents?: number | undefined;
  reason?: string | undefined;
  reasonCode?: string | undefined;
  baseAmount?: number | undefined;
  percentage?: number | undefined;
  category?: string | undefined;
  categoryCode?: string | undefined;
  rate?: number | undefined;
}

/** One group of the VAT breakdown: a category at a rate. */
export interface TaxGroup {
  categoryCode: string;
  rate: number;
  taxableCents: number;
  taxCents: number;
  exemptionCode?: string | undefined;
  exemptionText?: string | undefined;
}

export interface BillingTotals {
  lineExtensionCents: number;
  allowanceCents?: number | undefined;
  chargeCents?: number | undefined;
  taxExclusiveCents: number;
  taxCents: number;
  taxInclusiveCents: number;
  prepaidCents?: number | undefined;
  payableCents: number;
}

export interface BillingDocument {
  documentType: BillingDocumentType;
  typeCode: string;
  id?: string | undefined;
  /** `YYYY-MM-DD`, the date part of the body's UTC issueDate. */
  issueDate?: string | undefined;
  dueDate?: string | undefined;
  paymentTerms?: string | undefined;
  note?: string | undefined;
  currency?: string | undefined;
  buyerReference?: string | undefined;
  orderReference?: { id?: string | undefined; issueDate?: string | undefined } | undefined;
  billingReference?: { invoiceNo?: string | undefined; issueDate?: string | undefined } | undefined;
  supplier: BillingParty;
  customer: BillingParty;
  /** messageHandling.fallbackEmailAddress, written as the buyer's contact e-mail. */
  buyerEmail?: string | undefined;
  delivery?:
    | { date?: string | undefined; name?: string | undefined; address?: BillingAddress | undefined }
    | undefined;
  paymentMeans?:
    | {
        code?: string | undefined;
        paymentId?: string | undefined;
        accountId?: string | undefined;
        accountName?: string | undefined;
        bic?: string | undefined;
        mandateId?: string | undefined;
        payerAccountId?: string | undefined;
      }
    | undefined;
  prepaidAmount?: number | undefined;
  allowanceCharges: BillingAllowanceCharge[];
  lines: BillingLine[];
  /** The breakdown written: the body's taxBreakdown when given, else `derivedGroups`. */
  groups: TaxGroup[];
  derivedGroups: TaxGroup[];
  breakdownGiven: boolean;
  totals: BillingTotals;
}

/** Days between the issue date and the due date the simulator writes when the body gives neither a due date nor terms. */
export const DEFAULT_PAYMENT_DAYS = 30;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;
const number = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;
const object = (value: unknown): Record<string, unknown> => (isPlainObject(value) ? value : {});

/** Whole cents, or undefined; amounts with more decimals are refused by the rules (BR-DEC-*). */
export function toCents(value: number | undefined): number | undefined {
  return value === undefined ? undefined : Math.round(value * 100);
}

/** Cents as a decimal with two places: 37500 -> 375.00. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const whole = Math.abs(cents);
  return `${sign}${Math.floor(whole / 100)}.${String(whole % 100).padStart(2, '0')}`;
}

/** Rounds half away from zero, as the rules compare absolute values. */
export function roundCents(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value) + 1e-9);
}

/** The tax of `taxableCents` at `rate` percent, in cents. */
export function taxOf(taxableCents: number, rate: number): number {
  return roundCents((taxableCents * rate) / 100);
}

function address(value: unknown): BillingAddress | undefined {
  if (!isPlainObject(value)) return undefined;
  return {
    street: text(value.streetNameAndNumber),
    additionalStreet: text(value.additionalStreetName),
    city: text(value.city),
    postalZone: text(value.postalZone),
    subentity: text(value.countrySubentity),
    country: text(value.countryCode),
  };
}

function party(value: unknown): BillingParty {
  const p = object(value);
  const identifier = text(p.identifier);
  const colon = identifier?.indexOf(':') ?? -1;
  const registration = object(p.legalRegistration);
  const registrationId = text(registration.id);
  const contact = isPlainObject(p.contact) ? p.contact : undefined;
  return {
    endpoint:
      identifier === undefined || colon < 0
        ? undefined
        : { scheme: identifier.slice(0, colon), id: identifier.slice(colon + 1) },
    name: text(p.name),
    tradingName: text(p.tradingName),
    vatNumber: text(p.vatNumber),
    taxRegistrationId: text(p.taxRegistrationId),
    legalRegistration:
      registrationId === undefined
        ? undefined
        : { id: registrationId, schemeId: text(registration.schemeId) },
    address: address(p.address),
    contact:
      contact === undefined
        ? undefined
        : {
            name: text(contact.name),
            telephone: text(contact.telephone),
            email: text(contact.email),
          },
  };
}

function line(value: unknown, index: number): BillingLine {
  const l = object(value);
  const unit = text(object(l.unitOfMeasure).unit);
  const category = text(l.taxCategoryType);
  const net = number(l.taxableAmount);
  return {
    number: index + 1,
    itemNo: text(l.itemNo),
    buyersItemNo: text(l.buyersItemNo),
    name: text(l.name),
    description: text(l.description),
    orderLineReference: text(l.orderLineReference),
    quantity: number(l.quantity),
    unit,
    unitCode: unit === undefined ? undefined : unitCode(unit),
    price: number(l.unitPriceAmount),
    net,
    netCents: toCents(net),
    category,
    categoryCode: category === undefined ? undefined : taxCategoryCode(category),
    rate: number(l.taxPercentage),
    taxAmount: number(l.taxAmount),
    exemptionCode: text(l.taxExemptionReasonCode),
    exemptionText: text(l.taxExemptionReason),
  };
}

function allowanceCharge(value: unknown, index: number): BillingAllowanceCharge {
  const a = object(value);
  const category = text(a.taxCategoryType);
  const amount = number(a.amount);
  return {
    number: index + 1,
    charge: a.chargeIndicator === true,
    amount,
    amountCents: toCents(amount),
    reason: text(a.reason),
    reasonCode: text(a.reasonCode),
    baseAmount: number(a.baseAmount),
    percentage: number(a.percentage),
    category,
    categoryCode: category === undefined ? undefined : taxCategoryCode(category),
    rate: number(a.taxPercentage),
  };
}

/** The rate a category's group is keyed by: O has none. */
const groupRate = (categoryCode: string, rate: number) => (categoryCode === 'O' ? 0 : rate);

/**
 * The breakdown from the lines and document-level allowances and charges, one group a
 * category and rate. Its tax is what the sender's lines say (plus an allowance's or charge's
 * tax at its rate), so the document adds up to the JSON; the rules (BR-CO-17) hold it to
 * taxable amount x rate within one currency unit, as the official rules do.
 */
export function deriveTaxGroups(
  lines: readonly BillingLine[],
  allowanceCharges: readonly BillingAllowanceCharge[],
): TaxGroup[] {
  const groups = new Map<string, TaxGroup>();
  const groupOf = (categoryCode: string, rate: number) => {
    const key = `${categoryCode}|${groupRate(categoryCode, rate)}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = {
        categoryCode,
        rate: groupRate(categoryCode, rate),
        taxableCents: 0,
        taxCents: 0,
      };
      groups.set(key, group);
    }
    return group;
  };
  const exempt = (group: TaxGroup, code: string | undefined, reason: string | undefined) => {
    if (group.exemptionCode === undefined && group.exemptionText === undefined) {
      group.exemptionCode = code;
      group.exemptionText = reason;
    }
  };
  for (const l of lines) {
    if (l.categoryCode === undefined || l.rate === undefined || l.netCents === undefined) continue;
    const group = groupOf(l.categoryCode, l.rate);
    group.taxableCents += l.netCents;
    group.taxCents += toCents(l.taxAmount) ?? 0;
    exempt(group, l.exemptionCode, l.exemptionText);
  }
  for (const a of allowanceCharges) {
    if (a.categoryCode === undefined || a.rate === undefined || a.amountCents === undefined)
      continue;
    const group = groupOf(a.categoryCode, a.rate);
    const signed = a.charge ? a.amountCents : -a.amountCents;
    group.taxableCents += signed;
    group.taxCents += taxOf(signed, group.rate);
  }
  for (const group of groups.values()) {
    const fallback = DEFAULT_EXEMPTION[group.categoryCode];
    if (fallback !== undefined) exempt(group, fallback.code, fallback.text);
  }
  return [...groups.values()];
}

function givenTaxGroups(value: unknown): TaxGroup[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  return value.flatMap((entry) => {
    const g = object(entry);
    const category = text(g.taxCategoryType);
    const categoryCode = category === undefined ? undefined : taxCategoryCode(category);
    const rate = number(g.taxPercentage);
    const taxableCents = toCents(number(g.taxableAmount));
    const taxCents = toCents(number(g.taxAmount));
    if (categoryCode === undefined || rate === undefined) return [];
    if (taxableCents === undefined || taxCents === undefined) return [];
    const fallback = DEFAULT_EXEMPTION[categoryCode];
    const code = text(g.taxExemptionReasonCode);
    const reason = text(g.taxExemptionReason);
    const given = code !== undefined || reason !== undefined;
    return [
      {
        categoryCode,
        rate: groupRate(categoryCode, rate),
        taxableCents,
        taxCents,
        exemptionCode: given ? code : fallback?.code,
        exemptionText: given ? reason : fallback?.text,
      },
    ];
  });
}

function addDays(date: string, days: number): string | undefined {
  const time = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(time)
    ? undefined
    : new Date(time + days * 86_400_000).toISOString().slice(0, 10);
}

/** The date part of an ISO date-time, when it starts with one. */
const datePart = (value: string | undefined) =>
  value !== undefined && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : undefined;

export function readBillingDocument(
  body: Record<string, unknown>,
  options: { documentType?: BillingDocumentType | undefined } = {},
): BillingDocument {
  const invoice = object(body.invoice);
  const documentType =
    options.documentType ?? (invoice.documentType === 'CreditNote' ? 'CreditNote' : 'Invoice');
  const lines = (Array.isArray(invoice.invoiceLines) ? invoice.invoiceLines : []).map(line);
  const allowanceCharges = (
    Array.isArray(invoice.allowanceCharges) ? invoice.allowanceCharges : []
  ).map(allowanceCharge);
  const derivedGroups = deriveTaxGroups(lines, allowanceCharges);
  const given = givenTaxGroups(invoice.taxBreakdown);
  const groups = given ?? derivedGroups;

  const sum = (values: (number | undefined)[]) => values.reduce<number>((t, v) => t + (v ?? 0), 0);
  const allowances = allowanceCharges.filter((a) => !a.charge);
  const charges = allowanceCharges.filter((a) => a.charge);
  const lineExtensionCents = sum(lines.map((l) => l.netCents));
  const allowanceCents =
    allowances.length > 0 ? sum(allowances.map((a) => a.amountCents)) : undefined;
  const chargeCents = charges.length > 0 ? sum(charges.map((a) => a.amountCents)) : undefined;
  const taxExclusiveCents = lineExtensionCents - (allowanceCents ?? 0) + (chargeCents ?? 0);
  const taxCents = sum(groups.map((g) => g.taxCents));
  const prepaidAmount = number(invoice.prepaidAmount);
  const prepaidCents = toCents(prepaidAmount);

  const issueDate = datePart(text(invoice.issueDate));
  const dueDate = text(invoice.dueDate);
  const paymentTerms = text(invoice.paymentTerms);
  const defaultDue =
    dueDate === undefined && paymentTerms === undefined && issueDate !== undefined
      ? addDays(issueDate, DEFAULT_PAYMENT_DAYS)
      : undefined;
  const order = isPlainObject(invoice.orderReference) ? invoice.orderReference : undefined;
  const billing = isPlainObject(invoice.billingReference) ? invoice.billingReference : undefined;
  const delivery = isPlainObject(invoice.delivery) ? invoice.delivery : undefined;
  const means = isPlainObject(invoice.paymentMeans) ? invoice.paymentMeans : undefined;

  return {
    documentType,
    typeCode: text(invoice.typeCode) ?? (documentType === 'CreditNote' ? '381' : '380'),
    id: text(invoice.invoiceNo),
    issueDate,
    dueDate: dueDate ?? defaultDue,
    paymentTerms,
    note: text(invoice.note),
    currency: text(invoice.currencyCode),
    buyerReference: text(invoice.buyerReference),
    orderReference:
      order === undefined
        ? undefined
        : { id: text(order.documentNo), issueDate: datePart(text(order.issueDate)) },
    billingReference:
      billing === undefined
        ? undefined
        : { invoiceNo: text(billing.invoiceNo), issueDate: text(billing.issueDate) },
    supplier: party(invoice.supplier),
    customer: party(invoice.customer),
    buyerEmail: text(object(body.messageHandling).fallbackEmailAddress),
    delivery:
      delivery === undefined
        ? undefined
        : {
            date: text(delivery.date),
            name: text(delivery.name),
            address: address(delivery.address),
          },
    paymentMeans:
      means === undefined
        ? undefined
        : {
            code: text(means.code),
            paymentId: text(means.paymentId),
            accountId: text(means.accountId),
            accountName: text(means.accountName),
            bic: text(means.bic),
            mandateId: text(means.mandateId),
            payerAccountId: text(means.payerAccountId),
          },
    prepaidAmount,
    allowanceCharges,
    lines,
    groups,
    derivedGroups,
    breakdownGiven: given !== undefined,
    totals: {
      lineExtensionCents,
      allowanceCents,
      chargeCents,
      taxExclusiveCents,
      taxCents,
      taxInclusiveCents: taxExclusiveCents + taxCents,
      prepaidCents,
      payableCents: taxExclusiveCents + taxCents - (prepaidCents ?? 0),
    },
  };
}
