/**
 * The codes of a submit-invoice body: the EN 16931 code lists (code-lists.ts), the words the
 * specification's examples use for units and VAT categories ("a word such as a weight unit",
 * "a standard-rated category") mapped to their codes, and the check digits Peppol verifies in
 * identifiers. docs/peppol.md#codes lists the words.
 */
import { CODE_LIST_TEXT } from './code-lists.ts';

type ListName = keyof typeof CODE_LIST_TEXT;

const LISTS = Object.fromEntries(
  Object.entries(CODE_LIST_TEXT).map(([name, text]) => [name, new Set(text.split(' '))]),
) as unknown as Record<ListName, ReadonlySet<string>>;

export function inCodeList(list: ListName, code: string): boolean {
  return LISTS[list].has(code);
}

/** Unit words and their UN/ECE Recommendation 20 codes; a code itself is taken as it is. */
export const UNIT_WORDS: Readonly<Record<string, string>> = {
  piece: 'H87',
  unit: 'C62',
  each: 'EA',
  kilogram: 'KGM',
  gram: 'GRM',
  tonne: 'TNE',
  litre: 'LTR',
  liter: 'LTR',
  metre: 'MTR',
  meter: 'MTR',
  kilometre: 'KMT',
  squareMetre: 'MTK',
  cubicMetre: 'MTQ',
  hour: 'HUR',
  minute: 'MIN',
  day: 'DAY',
  week: 'WEE',
  month: 'MON',
  year: 'ANN',
  kilowattHour: 'KWH',
  box: 'XBX',
  pallet: 'XPX',
  set: 'SET',
};

/**
 * VAT category words and their UNCL 5305 codes; a code itself is taken as it is. `reduced`
 * is category S at a lower rate, as EN 16931 has no category of its own for it.
 */
export const TAX_CATEGORY_WORDS: Readonly<Record<string, string>> = {
  standard: 'S',
  reduced: 'S',
  zeroRated: 'Z',
  exempt: 'E',
  reverseCharge: 'AE',
  intraCommunity: 'K',
  export: 'G',
  notSubjectToVat: 'O',
  canaryIslands: 'L',
  ceutaMelilla: 'M',
};

/** The unit code of a body's unit, or undefined when it is neither a known word nor a code. */
export function unitCode(unit: string): string | undefined {
  const code = UNIT_WORDS[unit] ?? unit;
  return inCodeList('UNIT', code) ? code : undefined;
}

/** The UNCL 5305 code of a body's tax category, or undefined. */
export function taxCategoryCode(category: string): string | undefined {
  const code = TAX_CATEGORY_WORDS[category] ?? category;
  return inCodeList('VAT_CATEGORY', code) ? code : undefined;
}

/** The part of a category's rule ids after `BR-`: BR-S-08, BR-IC-02 (K), BR-AF-05 (L)... */
export const CATEGORY_RULE_PREFIX: Readonly<Record<string, string>> = {
  S: 'S',
  Z: 'Z',
  E: 'E',
  AE: 'AE',
  K: 'IC',
  G: 'G',
  O: 'O',
  L: 'AF',
  M: 'AG',
  B: 'B',
};

/** Categories whose rate is zero (O has none at all). */
export const ZERO_RATED_CATEGORIES: ReadonlySet<string> = new Set(['Z', 'E', 'AE', 'K', 'G', 'O']);

/**
 * Categories whose VAT breakdown needs an exemption reason, and the one the simulator writes
 * when the body gives none (E has no single code: its text only).
 */
export const DEFAULT_EXEMPTION: Readonly<Record<string, { code?: string; text: string }>> = {
  E: { text: 'Exempt from VAT' },
  AE: { code: 'VATEX-EU-AE', text: 'Reverse charge' },
  K: { code: 'VATEX-EU-IC', text: 'Intra-community supply' },
  G: { code: 'VATEX-EU-G', text: 'Export outside the EU' },
  O: { code: 'VATEX-EU-O', text: 'Not subject to VAT' },
};

/**
 * The identifier checks Peppol makes fatal (PEPPOL-COMMON-R040 to R050) for the schemes whose
 * numbers carry a check digit or a fixed form. Keyed by ICD/EAS scheme.
 */
export const IDENTIFIER_CHECKS: Readonly<
  Record<string, { rule: string; valid(id: string): boolean }>
> = {
  '0088': { rule: 'PEPPOL-COMMON-R040', valid: (id) => /^\d+$/.test(id) && gln(id) },
  '0192': { rule: 'PEPPOL-COMMON-R041', valid: (id) => /^\d{9}$/.test(id) && mod11(id) },
  '0184': {
    rule: 'PEPPOL-COMMON-R042',
    valid: (id) => /^DK\d{8}$/.test(id) || /^\d{8}$/.test(id),
  },
  '0208': { rule: 'PEPPOL-COMMON-R043', valid: (id) => /^\d{10}$/.test(id) && mod97(id) },
  '0007': { rule: 'PEPPOL-COMMON-R049', valid: (id) => /^\d{10}$/.test(id) && luhn(id) },
};

/** Norwegian organisation number: weights 3 2 7 6 5 4 3 2, check digit 11 - sum mod 11. */
export function mod11(id: string): boolean {
  const weights = [3, 2, 7, 6, 5, 4, 3, 2];
  const sum = weights.reduce((total, weight, i) => total + weight * Number(id[i]), 0);
  const check = (11 - (sum % 11)) % 11;
  return Number(id) > 0 && check === Number(id[8]);
}

/** GS1 GLN: weights 3 and 1 from the right, before the check digit. */
export function gln(id: string): boolean {
  const digits = [...id].map(Number);
  const check = digits.pop();
  const sum = digits.reverse().reduce((total, d, i) => total + d * (i % 2 === 0 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === check;
}

/** Swedish organisation number: Luhn over all ten digits. */
export function luhn(id: string): boolean {
  const sum = [...id].reverse().reduce((total, c, i) => {
    const d = Number(c) * (i % 2 === 1 ? 2 : 1);
    return total + (d > 9 ? d - 9 : d);
  }, 0);
  return sum % 10 === 0;
}

/** Belgian enterprise number: the last two digits are 97 - (the first eight mod 97). */
export function mod97(id: string): boolean {
  return 97 - (Number(id.slice(0, 8)) % 97) === Number(id.slice(8));
}
