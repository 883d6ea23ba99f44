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
import {
  type BillingAllowanceCharge,
  type BillingLine,
  readAllowanceCharge,
  readLine,
} from './billing-lines.ts';
import {
  type BillingAddress,
  type BillingParty,
  readAddress,
  readParty,
} from './billing-parties.ts';
import { toCents } from './cents.ts';
import { number, object, text } from './json-fields.ts';
import { deriveTaxGroups, readGivenTaxGroups, type TaxGroup } from './tax-groups.ts';

export type BillingDocumentType = 'Invoice' | 'CreditNote';

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
  const lines = (Array.isArray(invoice.invoiceLines) ? invoice.invoiceLines : []).map(readLine);
  const allowanceCharges = (
    Array.isArray(invoice.allowanceCharges) ? invoice.allowanceCharges : []
  ).map(readAllowanceCharge);
  const derivedGroups = deriveTaxGroups(lines, allowanceCharges);
  const given = readGivenTaxGroups(invoice.taxBreakdown);
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
    supplier: readParty(invoice.supplier),
    customer: readParty(invoice.customer),
    buyerEmail: text(object(body.messageHandling).fallbackEmailAddress),
    delivery:
      delivery === undefined
        ? undefined
        : {
            date: text(delivery.date),
            name: text(delivery.name),
            address: readAddress(delivery.address),
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
