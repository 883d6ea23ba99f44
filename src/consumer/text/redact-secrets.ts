/**
 * Hides known secret values in a text: what a fork module's error, log line or result passes
 * through before the consumer sends, stores or logs it (modules/module-redaction.ts). A module
 * gets the secret from its settings and sends it (an Authorization header, a query string); the
 * other system may then echo it back in whatever encoding its framework used, and the module
 * quotes that answer in an error. So each secret is looked for in every form it is commonly
 * echoed in, not only as set:
 *
 *   as set, in any case        `tok-3x`, `TOK-3X` (an upper-cased header dump)
 *   base64 and base64url       at each of the three alignments, so it is found inside the
 *                              encoding of a longer text (`Basic dXNlcjpwYXNz`, the base64 of
 *                              `Bearer tok-3x`), not only on its own
 *   percent-encoded            encodeURIComponent, encodeURI, form encoding, every byte
 *   JSON-escaped               a quote or a backslash in it, as a JSON body echoes it
 *
 * plus the userinfo of any URL in the text. A text cut short (printableText's `…`) may end in
 * the first part of a secret: that part is hidden too.
 *
 * Scrubbing a list of encodings is never complete (a hex dump, a double encoding, a secret cut
 * in the middle of a base64 group): this is the net under a module, not a licence to echo.
 */
import { redactUserinfoInText } from './redact-userinfo.ts';

/** What a hidden secret is replaced by. */
export const REDACTED = '[redacted]';

/**
 * Secrets shorter than this are not looked for: a value of two or three characters is found in
 * ordinary words, and hiding it would garble every message. A settings error still never
 * shows it, and a URL's userinfo is hidden whatever its length.
 */
export const MIN_SECRET_LENGTH = 4;

/**
 * The shortest first part of a secret hidden at the end of a text: after a cut mark (`…`,
 * `...`), and at a bare end, where a short match is more likely an ordinary word or number.
 */
const MIN_CUT_PART = { marked: 4, bare: 8 };

/** A function that hides the secrets it was made with in any text. */
export type TextRedactor = (text: string) => string;

/** A redactor of `secrets` (values shorter than MIN_SECRET_LENGTH are left out). */
export function createTextRedactor(secrets: Iterable<string>): TextRedactor {
  const plain = new Set<string>();
  const encoded = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    const forms = secretForms(secret);
    for (const form of forms.plain) plain.add(form);
    for (const form of forms.base64) encoded.add(form);
  }
  const all = [...plain, ...encoded].filter((form) => form.length >= MIN_SECRET_LENGTH);
  if (all.length === 0) return redactUserinfoInText;
  // A base64 character at either end mixes the secret's bits with its neighbour's: it goes too.
  const pattern = new RegExp(
    `${alternatives(plain)}|${BASE64_CHAR}?${alternatives(encoded)}${BASE64_CHAR}?={0,2}`,
    'gi',
  );
  const lowered = all.map((form) => form.toLowerCase());
  return (text) => hideCutPart(redactUserinfoInText(text.replace(pattern, REDACTED)), lowered);
}

const BASE64_CHAR = '[A-Za-z0-9+/_-]';

/** The forms as one group of a regular expression, longest first (hidden whole). */
function alternatives(forms: Iterable<string>): string {
  const sorted = [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH);
  sorted.sort((a, b) => b.length - a.length);
  // A group that matches nothing when there are no forms of its kind.
  return sorted.length === 0 ? '(?!)' : `(?:${sorted.map(escapeRegExp).join('|')})`;
}

/** Every form of `secret` looked for (see the header), as text and as base64. */
export function secretForms(secret: string): { plain: string[]; base64: string[] } {
  const bytes = Buffer.from(secret, 'utf8');
  const plain = new Set<string>([
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    encodeURI(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
    [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''),
  ]);
  const base64 = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const aligned = alignedBase64(bytes, offset);
    base64.add(aligned);
    base64.add(aligned.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return { plain: [...plain], base64: [...base64] };
}

/**
 * The base64 characters that stand for `bytes` alone when they start `offset` bytes into a
 * longer encoded text: the characters whose six bits all come from `bytes`. Whatever comes
 * before and after, those characters are in the encoding of the whole.
 */
function alignedBase64(bytes: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
  const first = Math.ceil((8 * offset) / 6);
  const end = Math.floor((8 * (offset + bytes.length)) / 6);
  return encoded.slice(first, end);
}

const CUT_MARK = /(?:…|\.\.\.)?$/;

/**
 * `text` without the first part of a secret form at its very end (before a cut mark), where a
 * bound cut it off: `...Bearer tok-3x-9f2c…` cut at `tok-3` keeps no `tok-3`.
 */
function hideCutPart(text: string, lowered: readonly string[]): string {
  const mark = CUT_MARK.exec(text)?.[0] ?? '';
  const body = text.slice(0, text.length - mark.length).toLowerCase();
  const shortest = mark === '' ? MIN_CUT_PART.bare : MIN_CUT_PART.marked;
  let longest = 0;
  for (const form of lowered) {
    for (let length = Math.min(form.length - 1, body.length); length > longest; length--) {
      if (length < shortest) break;
      if (body.endsWith(form.slice(0, length))) {
        longest = length;
        break;
      }
    }
  }
  if (longest === 0) return text;
  return `${text.slice(0, text.length - mark.length - longest)}${REDACTED}${mark}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
