/**
 * Text another system sent back (a problem's detail or title, the start of an error body) goes
 * into what this consumer stores (lastError, importError, a failure reason) and logs. It is
 * that system's text, not ours: a stand-in or a broken gateway once answered a 60 KB detail
 * full of ANSI colour codes and line breaks, which was stored on the event and logged on
 * every retry, repainting the operator's terminal each time. So it is made printable and
 * bounded before it goes anywhere.
 */

/**
 * The longest piece of a remote system's text that is kept, in characters. A real problem
 * detail ("invoiceNo: already used by message 8f0c...") fits in a fraction of it; more is a
 * page or a dump, and the start says what went wrong as well as the whole would.
 */
export const REMOTE_TEXT_LIMIT = 500;

// ANSI escape sequences first (CSI such as colours, OSC such as window titles and links, then
// any other two-character escape), so their parameters ("[31m") do not stay behind once the
// ESC itself is removed.
const ANSI =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what it removes
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]?/g;
// Line breaks and tabs become one space, so words on two lines stay two words.
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the remaining controls are dropped
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * `text` without escape sequences and control characters (line breaks become spaces), with
 * lone surrogates replaced by U+FFFD and no space at either end, cut to `limit` characters
 * with a trailing `…`.
 */
export function printableText(text: string, limit: number = REMOTE_TEXT_LIMIT): string {
  const clean = text
    .replace(ANSI, '')
    .replace(BREAKS, ' ')
    .replace(CONTROL, '')
    .toWellFormed()
    .trim();
  if (clean.length <= limit) return clean;
  // Cut before a surrogate pair rather than through it.
  const end = /[\ud800-\udbff]/.test(clean.charAt(limit - 2)) ? limit - 2 : limit - 1;
  return `${clean.slice(0, end)}…`;
}
