/**
 * The text redactor every fork module's text passes (text/redact-secrets.ts): a secret is
 * found in each form an ERP may echo it in, and nothing else in the text changes.
 */
import { describe, expect, it } from 'vitest';
import { createTextRedactor, REDACTED } from '../../../../src/consumer/text/redact-secrets.ts';
import { redactUserinfoInText } from '../../../../src/consumer/text/redact-userinfo.ts';

// A slash, a plus and an equals sign: percent-encoding and base64url both change it.
const TOKEN = 'erp-Tok/3n+x=9f2c4d';
const redact = createTextRedactor([TOKEN]);
const base64 = (text: string) => Buffer.from(text).toString('base64');
const base64url = (text: string) => Buffer.from(text).toString('base64url');

describe('createTextRedactor', () => {
  it.each<[string, (token: string) => string]>([
    ['as set', (t) => t],
    ['upper-cased', (t) => t.toUpperCase()],
    ['lower-cased', (t) => t.toLowerCase()],
    ['as a bearer header', (t) => `Bearer ${t}`],
    ['percent-encoded', (t) => encodeURIComponent(`Bearer ${t}`)],
    ['percent-encoded, lower-case hex', (t) => encodeURIComponent(t).toLowerCase()],
    ['form-encoded', (t) => new URLSearchParams({ auth: `Bearer ${t}` }).toString()],
    [
      'every byte percent-encoded',
      (t) => [...Buffer.from(t)].map((b) => `%${b.toString(16)}`).join(''),
    ],
    ['JSON-escaped', (t) => JSON.stringify({ auth: `"${t}"` })],
    ['base64 on its own', (t) => base64(t)],
    ['base64 of the header', (t) => base64(`Bearer ${t}`)],
    ['base64 one byte in', (t) => base64(`x${t}`)],
    ['base64 two bytes in', (t) => base64(`xy${t}!`)],
    ['base64url of the header', (t) => base64url(`Authorization: Bearer ${t}`)],
  ])('hides the token %s', (_form, echo) => {
    const text = `the ERP answered 401: unknown credential <${echo(TOKEN)}>, try again`;
    const shown = redact(text);
    expect(shown).toContain(REDACTED);
    expect(shown).toMatch(/^the ERP answered 401: unknown credential <.*>, try again$/);
    for (const piece of tokenPieces(echo)) expect(shown.toLowerCase()).not.toContain(piece);
  });

  it('hides the first part of the token where a bound cut the text', () => {
    const cut = `the ERP answered 422: credential Bearer ${TOKEN.slice(0, 9)}…`;
    expect(redact(cut)).toBe(`the ERP answered 422: credential Bearer ${REDACTED}…`);
    // At a bare end, a longer part: four characters could as well be a word or a year.
    expect(redact(`Bearer ${TOKEN.slice(0, 9)}`)).toBe(`Bearer ${REDACTED}`);
    expect(redact(`booked as ${TOKEN.slice(0, 4)}`)).toBe(`booked as ${TOKEN.slice(0, 4)}`);
  });

  it('hides the userinfo of every URL in the text, secrets declared or not', () => {
    const text = 'booked at https://erp:pw@erp.example/api, mirrored to ftp://x@y@backup.example/';
    expect(createTextRedactor([])(text)).toBe(
      'booked at https://[redacted]@erp.example/api, mirrored to ftp://[redacted]@backup.example/',
    );
    // A path's @ is not userinfo.
    expect(redactUserinfoInText('GET https://erp.example/users/a@b')).toBe(
      'GET https://erp.example/users/a@b',
    );
  });

  it('leaves a text without the secret as it was, and ignores a secret too short to find', () => {
    const text = 'booking the document: the ERP answered 503: maintenance until 10:00 …';
    expect(redact(text)).toBe(text);
    expect(createTextRedactor(['on', 'abc'])(text)).toBe(text);
  });
});

/**
 * The pieces of 6 characters of what `echo` makes of the token that depend on the token: those
 * not in what it makes of another token of the same length. Lower-cased.
 */
function tokenPieces(echo: (token: string) => string): string[] {
  const echoed = echo(TOKEN).toLowerCase();
  const other = echo('Q'.repeat(TOKEN.length)).toLowerCase();
  const pieces: string[] = [];
  for (let i = 0; i + 6 <= echoed.length; i++) {
    const piece = echoed.slice(i, i + 6);
    if (!other.includes(piece)) pieces.push(piece);
  }
  expect(pieces.length).toBeGreaterThan(0);
  return pieces;
}
