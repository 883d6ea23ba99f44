/**
 * The rules of a line and of a document-level allowance or charge: codes, decimals, the net
 * amount, the VAT category's rate, the reasons; official ids, all fatal, and the simulator's
 * own SIM-IL-03 warning.
 */
import type { ValidationResult } from '../../protocol/index.ts';
import type { BillingAllowanceCharge, BillingLine } from './billing-lines.ts';
import { taxOf, toCents } from './cents.ts';
import {
  CATEGORY_RULE_PREFIX,
  categoryRefusal,
  inCodeList,
  unitRefusal,
  ZERO_RATED_CATEGORIES,
} from './codes.ts';
import { type Fail, overTwoDecimals } from './rule-helpers.ts';

/** The line rules: codes, decimals, the net amount, the category's rate. */
export function checkLine(line: BillingLine, at: string, fail: Fail, results: ValidationResult[]) {
  if (line.unit !== undefined && line.unitCode === undefined) {
    fail('BR-CL-23', unitRefusal(line.unit), `${at}/cbc:InvoicedQuantity/@unitCode`);
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
    fail('BR-CL-18', categoryRefusal(item.category), `${at}/cbc:ID`);
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

export function checkAllowanceCharge(a: BillingAllowanceCharge, at: string, fail: Fail) {
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
