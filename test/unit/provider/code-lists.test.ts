import { describe, expect, it } from 'vitest';
import { gln, luhn, mod11, mod97 } from '../../../src/provider/billing/check-digits.ts';
import { CODE_LIST_SOURCE, CODE_LIST_TEXT } from '../../../src/provider/billing/code-lists.ts';
import {
  categoryRefusal,
  inCodeList,
  TAX_CATEGORY_WORDS,
  taxCategoryCode,
  UNIT_WORDS,
  unitCode,
  unitRefusal,
} from '../../../src/provider/billing/codes.ts';

describe('the EN 16931 code lists', () => {
  it('are the generated lists of their named source, each a list of codes', () => {
    expect(CODE_LIST_SOURCE).toMatch(/^@e-invoice-eu\/core \d+\.\d+\.\d+$/);
    for (const [name, text] of Object.entries(CODE_LIST_TEXT)) {
      expect(text.split(' ').length, name).toBeGreaterThan(5);
      expect(text, name).toMatch(/^\S+( \S+)*$/);
    }
  });

  it('hold the codes every word maps to, and refuse what is neither code nor word', () => {
    for (const [word, code] of Object.entries(UNIT_WORDS)) expect(unitCode(word), word).toBe(code);
    for (const [word, code] of Object.entries(TAX_CATEGORY_WORDS)) {
      expect(taxCategoryCode(word), word).toBe(code);
    }
    expect(unitCode('KGM')).toBe('KGM');
    expect(unitCode('kilo')).toBeUndefined();
    expect(taxCategoryCode('AE')).toBe('AE');
    expect(taxCategoryCode('X')).toBeUndefined();
    expect(inCodeList('CURRENCY', 'NOK')).toBe(true);
    expect(inCodeList('CURRENCY', 'ABC')).toBe(false);
    expect(inCodeList('COUNTRY', 'XX')).toBe(false);
    expect(inCodeList('ELECTRONIC_ADDRESS_SCHEME', '0192')).toBe(true);
    expect(inCodeList('ELECTRONIC_ADDRESS_SCHEME', '9999')).toBe(false);
  });

  it('match a word as people write it: any case, spaces, hyphens, underscores, plurals', () => {
    const units = {
      Kilogram: 'KGM',
      KILOGRAMS: 'KGM',
      'kilo-gram': 'KGM',
      ' Pieces ': 'H87',
      'square metres': 'MTK',
      Square_Meter: 'MTK',
      'cubic-meters': 'MTQ',
      'Kilowatt hours': 'KWH',
      boxes: 'XBX',
      eaches: 'EA',
      Hours: 'HUR',
      Days: 'DAY',
      kilometers: 'KMT',
    };
    for (const [unit, code] of Object.entries(units)) expect(unitCode(unit), unit).toBe(code);
    const categories = {
      StandardRated: 'S',
      'standard-rated': 'S',
      'Standard rated': 'S',
      STANDARD: 'S',
      'zero-rated': 'Z',
      'Reverse Charge': 'AE',
      'not subject to VAT': 'O',
      NOT_SUBJECT_TO_VAT: 'O',
      'intra-community': 'K',
      'Canary Islands': 'L',
    };
    for (const [category, code] of Object.entries(categories)) {
      expect(taxCategoryCode(category), category).toBe(code);
    }
  });

  it('take codes only as the lists write them, and name the code a wrong case meant', () => {
    for (const code of ['KGM', 'H87', 'C62', 'MIN']) expect(unitCode(code), code).toBe(code);
    for (const code of ['S', 'AE', 'E']) expect(taxCategoryCode(code), code).toBe(code);
    // Upper-casing would turn abbreviations into other units: gm (gram) into GM, g/m2.
    for (const notCode of ['kgm', 'Kgm', 'h87', 'gm', 'kilo', 'kg']) {
      expect(unitCode(notCode), notCode).toBeUndefined();
    }
    for (const notCode of ['s', 'ae', 'Standardd', 'low']) {
      expect(taxCategoryCode(notCode), notCode).toBeUndefined();
    }
    expect(unitRefusal('kgm')).toMatch(/; codes are case-sensitive \(KGM is one\)$/);
    expect(unitRefusal('kilo')).toMatch(/kilogram.*\(in any case, .* or in the plural\)$/);
    expect(categoryRefusal('ae')).toMatch(
      /standardRated.*; codes are case-sensitive \(AE is one\)$/,
    );
    expect(categoryRefusal('X')).not.toMatch(/case-sensitive \(/);
  });
});

describe('identifier check digits, as Peppol computes them', () => {
  it('Norwegian organisation numbers (mod 11)', () => {
    expect(mod11('987654325')).toBe(true);
    expect(mod11('999999999')).toBe(true);
    expect(mod11('123456789')).toBe(false);
    expect(mod11('000000000')).toBe(false);
  });

  it('GLNs, Swedish organisation numbers (Luhn) and Belgian enterprise numbers (mod 97)', () => {
    expect(gln('5901234123457')).toBe(true);
    expect(gln('5901234123458')).toBe(false);
    expect(luhn('5560000001')).toBe(true);
    expect(luhn('5560000002')).toBe(false);
    expect(mod97('0123456749')).toBe(true);
    expect(mod97('0123456748')).toBe(false);
  });
});
