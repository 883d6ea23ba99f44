/** The lines and the document-level allowances and charges of a billing document. */
import { toCents } from './cents.ts';
import { taxCategoryCode, unitCode } from './codes.ts';
import { number, object, text } from './json-fields.ts';

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

export function readLine(value: unknown, index: number): BillingLine {
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

export function readAllowanceCharge(value: unknown, index: number): BillingAllowanceCharge {
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
