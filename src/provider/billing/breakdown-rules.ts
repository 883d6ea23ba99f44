/** The rules of the VAT breakdown (fatal, official ids). */
import type { BillingDocument } from './billing-document.ts';
import { taxOf } from './cents.ts';
import { CATEGORY_RULE_PREFIX, ZERO_RATED_CATEGORIES } from './codes.ts';
import { type Fail, ONE_UNIT } from './rule-helpers.ts';
import type { TaxGroup } from './tax-groups.ts';

/**
 * The VAT breakdown: the tax the sender's lines add up to must be the category's taxable
 * amount times its rate within one currency unit (BR-CO-17, and BR-S-09 and its kin), or 0
 * for the zero-rated categories; a breakdown the body gives must match the lines (BR-S-08
 * and its kin) and its own rate.
 */
export function checkBreakdown(doc: BillingDocument, at: string, fail: Fail) {
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
