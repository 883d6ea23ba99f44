/**
 * Check digits of national numbers. The validator checks the first four in identifiers
 * (codes.ts's IDENTIFIER_CHECKS: the Norwegian and Swedish organisation numbers, GLN, the
 * Belgian enterprise number); the rest are for the numbers a scenario invents
 * (national-numbers.ts), which the simulator does not check but the official Peppol rules
 * partly do (the Greek TIN, GR-R-003; the partita IVA, PEPPOL-COMMON-R047, a warning): a number
 * a sandbox invents should pass the check other software makes. Each takes the digits only, no
 * country prefix.
 */

const digitsOf = (id: string) => [...id].map(Number);
const weighted = (id: string, weights: readonly number[]) =>
  weights.reduce((total, weight, i) => total + weight * Number(id[i]), 0);

/** Norwegian organisation number: weights 3 2 7 6 5 4 3 2, check digit 11 - sum mod 11. */
export function mod11(id: string): boolean {
  const check = (11 - (weighted(id, [3, 2, 7, 6, 5, 4, 3, 2]) % 11)) % 11;
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

/** Danish CVR number: eight digits, weights 2 7 6 5 4 3 2 1, sum divisible by 11. */
export function cvr(id: string): boolean {
  return /^\d{8}$/.test(id) && weighted(id, [2, 7, 6, 5, 4, 3, 2, 1]) % 11 === 0;
}

/** Finnish business id (Y-tunnus) without its hyphen: seven digits and 11 - sum mod 11. */
export function finnishBusinessId(id: string): boolean {
  if (!/^\d{8}$/.test(id)) return false;
  const rest = weighted(id, [7, 9, 10, 5, 8, 4, 2]) % 11;
  return rest !== 1 && (rest === 0 ? 0 : 11 - rest) === Number(id[7]);
}

/** Icelandic kennitala: the ninth digit is 11 - (weights 3 2 7 6 5 4 3 2) mod 11. */
export function kennitala(id: string): boolean {
  if (!/^\d{10}$/.test(id)) return false;
  const check = 11 - (weighted(id, [3, 2, 7, 6, 5, 4, 3, 2]) % 11);
  return check !== 10 && check % 11 === Number(id[8]);
}

/** Greek TIN (AFM), as the Peppol rules' u:TinVerification: weights 256 ... 2, mod 11 mod 10. */
export function greekTin(id: string): boolean {
  if (!/^\d{9}$/.test(id)) return false;
  return (weighted(id, [256, 128, 64, 32, 16, 8, 4, 2]) % 11) % 10 === Number(id[8]);
}

/** German VAT number (USt-IdNr.) after DE: nine digits, ISO 7064 MOD 11,10. */
export function germanVat(id: string): boolean {
  if (!/^[1-9]\d{8}$/.test(id)) return false;
  let product = 10;
  for (const d of digitsOf(id.slice(0, 8))) {
    const sum = (d + product) % 10 || 10;
    product = (2 * sum) % 11;
  }
  return (11 - product) % 10 === Number(id[8]);
}

/** Dutch VAT number's nine digits before B: the eleven test (weights 9 ... 2, mod 11). */
export function dutchVat(id: string): boolean {
  if (!/^\d{9}$/.test(id)) return false;
  return weighted(id, [9, 8, 7, 6, 5, 4, 3, 2]) % 11 === Number(id[8]);
}

/** Austrian VAT number's eight digits after ATU. */
export function austrianVat(id: string): boolean {
  if (!/^\d{8}$/.test(id)) return false;
  const sum = digitsOf(id.slice(0, 7)).reduce(
    (total, d, i) => total + (i % 2 === 0 ? d : Math.floor((2 * d) / 10) + ((2 * d) % 10)),
    0,
  );
  return (10 - ((sum + 4) % 10)) % 10 === Number(id[7]);
}

/** Italian partita IVA: eleven digits, Luhn (the Peppol rules' u:checkPIVA). */
export function partitaIva(id: string): boolean {
  return /^\d{11}$/.test(id) && luhn(id);
}

/** French SIREN: nine digits, Luhn. */
export function siren(id: string): boolean {
  return /^\d{9}$/.test(id) && luhn(id);
}

/** The two-digit key of a French VAT number, FR + key + SIREN. */
export function frenchVatKey(sirenNumber: string): string {
  return String((12 + 3 * (Number(sirenNumber) % 97)) % 97).padStart(2, '0');
}

/**
 * The control digit of a Spanish company's NIF (CIF) after its letter: seven digits, the odd
 * places doubled (digit sum), 10 - total mod 10.
 */
export function spanishCifControl(sevenDigits: string): string {
  const total = digitsOf(sevenDigits).reduce(
    (sum, d, i) => sum + (i % 2 === 0 ? Math.floor((2 * d) / 10) + ((2 * d) % 10) : d),
    0,
  );
  return String((10 - (total % 10)) % 10);
}

/** The IBAN of an account: country, ISO 13616 check digits, the national account number. */
export function iban(country: string, bban: string): string {
  const letters = (text: string) =>
    [...text].map((c) => (/\d/.test(c) ? c : String(c.charCodeAt(0) - 55))).join('');
  const rest = BigInt(letters(`${bban}${country}00`)) % 97n;
  return `${country}${String(98n - rest).padStart(2, '0')}${bban}`;
}
