/**
 * Amounts in whole cents: the billing document adds, compares and writes them as integers, so
 * that a sum of lines never picks up a binary fraction (0.1 + 0.2).
 */

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
