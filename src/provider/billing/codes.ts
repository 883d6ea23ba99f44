/**
 * The codes of a submit-invoice body: the EN 16931 code lists (code-lists.ts), the words the
 * specification's examples use for units and VAT categories ("a word such as a weight unit",
 * "a standard-rated category") mapped to their codes, and the identifiers whose check digits
 * Peppol verifies (the digits: check-digits.ts). docs/peppol.md#codes lists the words.
 *
 * A code is taken only as the list writes it: the lists are case-sensitive and hold no
 * lower-case code, and Peppol's BR-CL-18 and BR-CL-23 compare exactly. Upper-casing what a
 * body sends would turn what people abbreviate into other units (`gm` for gram would become GM,
 * gram per square metre), so `kgm` is refused, with a hint naming KGM. A word is matched as
 * people write it: any case, spaces, hyphens and underscores left out, a unit also in its
 * plural (`Kilograms`, `square metres`, `boxes`).
 */
import { gln, luhn, mod11, mod97 } from './check-digits.ts';
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
  kilometer: 'KMT',
  squareMetre: 'MTK',
  squareMeter: 'MTK',
  cubicMetre: 'MTQ',
  cubicMeter: 'MTQ',
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
 * is category S at a lower rate, as EN 16931 has no category of its own for it;
 * `standardRated` is the specification's own phrase ("a standard-rated category").
 */
export const TAX_CATEGORY_WORDS: Readonly<Record<string, string>> = {
  standard: 'S',
  standardRated: 'S',
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

/** How a word is compared: `Square-Metres`, `square metres` and `squareMetres` are one. */
function wordKey(word: string): string {
  return word.toLowerCase().replace(/[\s_-]+/g, '');
}

/** `boxes`, `eaches` (as logistics counts single items), `kilograms`. */
function plural(word: string): string {
  return /(s|x|ch|sh)$/.test(word) ? `${word}es` : `${word}s`;
}

const UNIT_KEYS = new Map(
  Object.entries(UNIT_WORDS).flatMap(([word, code]) => [
    [wordKey(word), code],
    [wordKey(plural(word)), code],
  ]),
);

const CATEGORY_KEYS = new Map(
  Object.entries(TAX_CATEGORY_WORDS).map(([word, code]) => [wordKey(word), code]),
);

/** The unit code of a body's unit, or undefined when it is neither a code nor a known word. */
export function unitCode(unit: string): string | undefined {
  if (inCodeList('UNIT', unit)) return unit;
  return UNIT_KEYS.get(wordKey(unit));
}

/** The UNCL 5305 code of a body's tax category, or undefined. */
export function taxCategoryCode(category: string): string | undefined {
  if (inCodeList('VAT_CATEGORY', category)) return category;
  return CATEGORY_KEYS.get(wordKey(category));
}

/** Why a body's unit is refused (BR-CL-23): the words it could have been, or the code it meant. */
export function unitRefusal(unit: string): string {
  return `Unit ${unit} is neither a UN/ECE Recommendation 20 code nor one of the words ${Object.keys(UNIT_WORDS).join(', ')} (in any case, with or without spaces, hyphens or underscores, or in the plural)${caseHint('UNIT', unit)}`;
}

/** Why a body's tax category is refused (BR-CL-18). */
export function categoryRefusal(category: string): string {
  return `Tax category ${category} is neither a UNCL 5305 code nor one of the words ${Object.keys(TAX_CATEGORY_WORDS).join(', ')} (in any case, with or without spaces, hyphens or underscores)${caseHint('VAT_CATEGORY', category)}`;
}

/** A code written in another case is named: the sender most likely meant it. */
function caseHint(list: 'UNIT' | 'VAT_CATEGORY', value: string): string {
  const upper = value.toUpperCase();
  return upper !== value && inCodeList(list, upper)
    ? `; codes are case-sensitive (${upper} is one)`
    : '';
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
