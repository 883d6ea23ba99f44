/** What the rule modules share. */

/** Reports a fatal rule: an `error` with the rule's id. */
export type Fail = (code: string, message: string, location: string) => void;

/** More than two decimals: 0.125, but not 0.1 + 0.2. */
export const overTwoDecimals = (value: number) =>
  Math.abs(value * 100 - Math.round(value * 100)) > 1e-6;

/** One currency unit in cents: the tolerance of the breakdown rules (BR-CO-17, BR-S-08). */
export const ONE_UNIT = 100;
