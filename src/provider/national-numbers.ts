/**
 * The VAT number and the legal registration a scenario gives a party (invoice.ts), formed as
 * its country's rules want them: the national rules of Peppol BIS Billing 3.0 (NO-R-001,
 * SE-R-001/002, DK-R-002/014, IS-R-002/004, GR-R-003/006), EN 16931's
 * BR-CO-09 (the VAT number starts with its ISO 3166-1 country code; Greece's with EL) and the
 * identifier checks of PEPPOL-COMMON (R041 to R049).
 *
 * A number is taken from the party's identifier when the identifier carries it: its scheme is
 * the country's register or VAT scheme and the number has that scheme's form, and the check
 * digit the official rules verify where they verify one (Norway, Sweden, Belgium, Greece):
 * `0192:987654325` is Norwegian organisation number 987654325, so VAT number NO987654325MVA.
 * Otherwise (a GLN, another country's scheme, a wrong check digit) the scenario invents one, of
 * the country's form and with a valid check digit, from a hash of the identifier: the same
 * party always gets the same number, and no two parties share one in practice. A country
 * without its own form here gets its ISO code and nine digits, which is what BR-CO-09 checks.
 */
import { createHash } from 'node:crypto';
import {
  austrianVat,
  cvr,
  dutchVat,
  finnishBusinessId,
  frenchVatKey,
  germanVat,
  greekTin,
  kennitala,
  luhn,
  mod11,
  mod97,
  partitaIva,
  siren,
  spanishCifControl,
} from './billing/check-digits.ts';

export interface NationalNumbers {
  /** BT-31 (seller) or BT-48 (buyer), with its country prefix. */
  vatNumber: string;
  /** BT-30 (seller) or BT-47 (buyer), where the country's rules ask for one (DK, IS). */
  legalRegistration?: { id: string; schemeId: string };
}

interface Identifier {
  scheme: string;
  value: string;
}

/** Digits of `length` that pass `valid`, the first one of `first`, drawn from the seed. */
type Invent = (length: number, valid?: (digits: string) => boolean, first?: string) => string;

type Form = (id: Identifier, invent: Invent) => NationalNumbers;

/**
 * The identifier's number when its scheme is one of `schemes` and it matches `pattern` (the
 * capture groups, joined, are the national number) and passes `valid`.
 */
function take(
  id: Identifier,
  schemes: readonly string[],
  pattern: RegExp,
  valid: (digits: string) => boolean = () => true,
): string | undefined {
  if (!schemes.includes(id.scheme)) return undefined;
  const match = pattern.exec(id.value);
  const number = match?.slice(1).join('');
  return number !== undefined && valid(number) ? number : undefined;
}

const registered = (vatNumber: string, id: string, schemeId: string): NationalNumbers => ({
  vatNumber,
  legalRegistration: { id, schemeId },
});

const FORMS: Readonly<Record<string, Form>> = {
  // NO-R-001: NO, the organisation number (mod 11, PEPPOL-COMMON-R041 for 0192), MVA.
  NO(id, invent) {
    const org = take(id, ['0192'], /^(\d{9})$/, mod11) ?? invent(9, mod11, '89');
    return { vatNumber: `NO${org}MVA` };
  },
  // SE-R-001/002: SE, the organisation number (Luhn, PEPPOL-COMMON-R049 for 0007), 01.
  SE(id, invent) {
    const org = take(id, ['0007'], /^(\d{10})$/, luhn) ?? invent(10, luhn, '5');
    return { vatNumber: `SE${org}01` };
  },
  // DK and the CVR number; DK-R-002/014: a Danish supplier gives it as its registration, 0184.
  DK(id, invent) {
    const number = take(id, ['0184'], /^(?:DK)?(\d{8})$/) ?? invent(8, cvr);
    return registered(`DK${number}`, number, '0184');
  },
  // FI and the business id (Y-tunnus) without its hyphen.
  FI(id, invent) {
    const number =
      take(id, ['0213'], /^(?:FI)?(\d{8})$/) ??
      take(id, ['0216', '0037'], /^0037(\d{8})\w*$/) ??
      take(id, ['0212'], /^(\d{7})-?(\d)$/) ??
      invent(8, finnishBusinessId, '0123');
    return { vatNumber: `FI${number}` };
  },
  // IS-R-002/004: an Icelandic supplier, and its Icelandic buyer, give their kennitala as
  // their registration, 0196. The VAT number (VSK number, five or six digits) has no link to
  // it, so it is always invented.
  IS(id, invent) {
    const number =
      take(id, ['0196'], /^(\d{10})$/) ??
      invent(10, (d) => kennitala(d) && /[09]$/.test(d), '4567');
    return registered(`IS${invent(6)}`, number, '0196');
  },
  // DE and nine digits (ISO 7064 MOD 11,10).
  DE(id, invent) {
    const number = take(id, ['9930'], /^(?:DE)?(\d{9})$/) ?? invent(9, germanVat);
    return { vatNumber: `DE${number}` };
  },
  // NL, nine digits (the eleven test), B and two.
  NL(id, invent) {
    const number = take(id, ['9944'], /^(?:NL)?(\d{9}B\d{2})$/) ?? `${invent(9, dutchVat)}B01`;
    return { vatNumber: `NL${number}` };
  },
  // BE and the enterprise number (mod 97, PEPPOL-COMMON-R043 for 0208).
  BE(id, invent) {
    const number =
      take(id, ['0208', '9925'], /^(?:BE)?([01]\d{9})$/, mod97) ?? invent(10, mod97, '01');
    return { vatNumber: `BE${number}` };
  },
  // FR, the key and the SIREN (Luhn), read from a SIREN (0002), SIRET (0009) or VAT (9957).
  FR(id, invent) {
    const given = take(id, ['9957'], /^(?:FR)?([0-9A-Z]{2}\d{9})$/);
    if (given !== undefined) return { vatNumber: `FR${given}` };
    const number =
      take(id, ['0002'], /^(\d{9})$/) ?? take(id, ['0009'], /^(\d{9})\d{5}$/) ?? invent(9, siren);
    return { vatNumber: `FR${frenchVatKey(number)}${number}` };
  },
  // IT and the partita IVA (Luhn, PEPPOL-COMMON-R047 for 0211).
  IT(id, invent) {
    const number = take(id, ['0211'], /^(?:IT)?(\d{11})$/) ?? invent(11, partitaIva);
    return { vatNumber: `IT${number}` };
  },
  // ES and a company's NIF: a letter, seven digits, a control digit.
  ES(id, invent) {
    const given = take(id, ['9920'], /^(?:ES)?([A-Z0-9]\d{7}[A-Z0-9])$/);
    if (given !== undefined) return { vatNumber: `ES${given}` };
    const digits = invent(7);
    return { vatNumber: `ESB${digits}${spanishCifControl(digits)}` };
  },
  // ATU and eight digits.
  AT(id, invent) {
    const number = take(id, ['9914'], /^(?:AT)?U(\d{8})$/) ?? invent(8, austrianVat);
    return { vatNumber: `ATU${number}` };
  },
  // GR-R-003/006: EL (BR-CO-09's exception) and the TIN the Peppol rules verify.
  GR(id, invent) {
    const number = take(id, ['9933'], /^(?:EL|GR)?(\d{9})$/, greekTin) ?? invent(9, greekTin);
    return { vatNumber: `EL${number}` };
  },
};

/** The numbers of a party of `countryCode` with network identifier `<scheme>:<number>`. */
export function nationalNumbers(party: {
  identifier: string;
  countryCode: string;
}): NationalNumbers {
  const colon = party.identifier.indexOf(':');
  const id = {
    scheme: colon < 0 ? '' : party.identifier.slice(0, colon),
    value: party.identifier.slice(colon + 1),
  };
  const invent = inventor(`${party.countryCode}/${party.identifier}`);
  const form = Object.hasOwn(FORMS, party.countryCode) ? FORMS[party.countryCode] : undefined;
  return form === undefined ? { vatNumber: `${party.countryCode}${invent(9)}` } : form(id, invent);
}

function inventor(seed: string): Invent {
  return (length, valid = () => true, first = '123456789') => {
    for (let attempt = 0; ; attempt++) {
      const hash = createHash('sha256').update(`${seed}#${length}#${attempt}`).digest();
      let digits = first[(hash[0] ?? 0) % first.length] ?? '1';
      for (let i = 1; i < length; i++) digits += String((hash[i] ?? 0) % 10);
      if (valid(digits)) return digits;
    }
  };
}
