/**
 * The VAT breakdown of a billing document: one group a category and rate, derived from the
 * lines, allowances and charges, or read from the body's taxBreakdown when it gives one.
 */
import type { BillingAllowanceCharge, BillingLine } from './billing-lines.ts';
import { taxOf, toCents } from './cents.ts';
import { DEFAULT_EXEMPTION, taxCategoryCode } from './codes.ts';
import { number, object, text } from './json-fields.ts';

/** One group of the VAT breakdown: a category at a rate. */
export interface TaxGroup {
  categoryCode: string;
  rate: number;
  taxableCents: number;
  taxCents: number;
  exemptionCode?: string | undefined;
  exemptionText?: string | undefined;
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

export function readGivenTaxGroups(value: unknown): TaxGroup[] | undefined {
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
