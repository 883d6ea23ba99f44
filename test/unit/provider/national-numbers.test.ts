/**
 * The VAT numbers and registrations a scenario gives a party: taken from its identifier when
 * the identifier carries them, otherwise invented in the country's form with a valid check
 * digit, the same for the same party.
 */
import { describe, expect, it } from 'vitest';
import * as check from '../../../src/provider/billing/check-digits.ts';
import { IDENTIFIER_CHECKS } from '../../../src/provider/billing/codes.ts';
import { nationalNumbers } from '../../../src/provider/national-numbers.ts';

const numbers = (identifier: string, countryCode: string) =>
  nationalNumbers({ identifier, countryCode });

describe('numbers taken from the identifier', () => {
  it.each([
    ['0192:987654325', 'NO', 'NO987654325MVA', undefined],
    ['0007:5560000001', 'SE', 'SE556000000101', undefined],
    ['0184:12345678', 'DK', 'DK12345678', '0184:12345678'],
    ['0184:DK12345678', 'DK', 'DK12345678', '0184:12345678'],
    ['0216:003723456780', 'FI', 'FI23456780', undefined],
    ['0213:FI12345671', 'FI', 'FI12345671', undefined],
    ['0212:1234567-1', 'FI', 'FI12345671', undefined],
    ['0196:4502032039', 'IS', undefined, '0196:4502032039'],
    ['9930:DE123456789', 'DE', 'DE123456789', undefined],
    ['9944:NL004495445B01', 'NL', 'NL004495445B01', undefined],
    ['0208:0123456749', 'BE', 'BE0123456749', undefined],
    ['9925:BE0765432146', 'BE', 'BE0765432146', undefined],
    ['0002:303265045', 'FR', 'FR40303265045', undefined],
    ['0009:12345678900012', 'FR', 'FR32123456789', undefined],
    ['9957:FR40303265045', 'FR', 'FR40303265045', undefined],
    ['0211:IT07643520567', 'IT', 'IT07643520567', undefined],
    ['9920:ESB12345678', 'ES', 'ESB12345678', undefined],
    ['9914:ATU13585627', 'AT', 'ATU13585627', undefined],
    ['9933:094259216', 'GR', 'EL094259216', undefined],
  ])('%s (%s): VAT %s, registered %s', (identifier, country, vat, registration) => {
    const got = numbers(identifier, country);
    if (vat !== undefined) expect(got.vatNumber).toBe(vat);
    const reg = got.legalRegistration;
    expect(reg === undefined ? undefined : `${reg.schemeId}:${reg.id}`).toBe(registration);
  });
});

describe('numbers invented for an identifier that does not carry them', () => {
  // A GLN, another country's scheme, and a Norwegian number with a wrong check digit.
  const identifiers = ['0088:7300012345674', '0192:987654321', '9930:DE123456789', '0088:1'];

  /** The form and check of each country's invented numbers. */
  const FORMS: Record<string, (vat: string, registration?: string) => boolean> = {
    NO: (vat) => /^NO\d{9}MVA$/.test(vat) && check.mod11(vat.slice(2, 11)),
    SE: (vat) =>
      /^SE\d{10}01$/.test(vat) && IDENTIFIER_CHECKS['0007']?.valid(vat.slice(2, 12)) === true,
    DK: (vat, reg) => check.cvr(vat.slice(2)) && reg === vat.slice(2),
    FI: (vat) => check.finnishBusinessId(vat.slice(2)),
    IS: (vat, reg) =>
      /^IS\d{6}$/.test(vat) && check.kennitala(reg ?? '') && /[09]$/.test(reg ?? ''),
    DE: (vat) => check.germanVat(vat.slice(2)),
    NL: (vat) => /^NL\d{9}B01$/.test(vat) && check.dutchVat(vat.slice(2, 11)),
    BE: (vat) => /^BE[01]\d{9}$/.test(vat) && check.mod97(vat.slice(2)),
    FR: (vat) => check.siren(vat.slice(4)) && vat.slice(2, 4) === check.frenchVatKey(vat.slice(4)),
    IT: (vat) => check.partitaIva(vat.slice(2)),
    ES: (vat) => /^ESB\d{8}$/.test(vat) && check.spanishCifControl(vat.slice(3, 10)) === vat[10],
    AT: (vat) => /^ATU\d{8}$/.test(vat) && check.austrianVat(vat.slice(3)),
    GR: (vat) => /^EL\d{9}$/.test(vat) && check.greekTin(vat.slice(2)),
    US: (vat) => /^US\d{9}$/.test(vat),
    CH: (vat) => /^CH\d{9}$/.test(vat),
  };

  it.each(Object.keys(FORMS))('in %s, of its form and with a valid check digit', (country) => {
    for (const identifier of identifiers) {
      if (country === 'DE' && identifier.startsWith('9930:')) continue;
      const got = numbers(identifier, country);
      expect(FORMS[country]?.(got.vatNumber, got.legalRegistration?.id), got.vatNumber).toBe(true);
    }
  });

  it('the same for the same party, different for another', () => {
    expect(numbers('0088:1', 'SE')).toEqual(numbers('0088:1', 'SE'));
    expect(numbers('0088:1', 'SE').vatNumber).not.toBe(numbers('0088:2', 'SE').vatNumber);
    expect(numbers('0192:987654321', 'NO').vatNumber).not.toBe('NO987654321MVA');
  });
});

describe('check digits', () => {
  it('accept published valid numbers and refuse them with the check digit changed', () => {
    const numbers: [(id: string) => boolean, string, string][] = [
      [check.cvr, '13585628', '13585629'],
      [check.finnishBusinessId, '01120389', '01120380'],
      // The tenth digit is the century; the ninth is the check digit.
      [check.kennitala, '5902697199', '5902697109'],
      [check.greekTin, '094259216', '094259217'],
      [check.germanVat, '136695976', '136695977'],
      [check.dutchVat, '004495445', '004495446'],
      [check.austrianVat, '13585627', '13585628'],
      [check.partitaIva, '07643520567', '07643520568'],
    ];
    for (const [isValid, valid, changed] of numbers) {
      expect(isValid(valid), valid).toBe(true);
      expect(isValid(changed), changed).toBe(false);
    }
    expect(check.frenchVatKey('303265045')).toBe('40');
    expect(check.spanishCifControl('5881850')).toBe('1');
    expect(check.iban('DE', '370400440532013000')).toBe('DE89370400440532013000');
    expect(check.iban('GB', 'NWBK60161331926819')).toBe('GB29NWBK60161331926819');
  });
});
