/**
 * Message identifiers travel in URL paths (`/messages/:mid/...`). encodeURIComponent leaves
 * `.` and `..` unchanged, so an id of `..` would turn `GET /messages/../documents/core` into
 * another route at a normalising gateway, with the API token attached. The service's ids are
 * UUID-shaped; anything that could not be one safe path segment is refused where it enters
 * (the envelope) and again where it leaves (the API client).
 */

/** Why an id was refused, in words fit for a 400 answer or an error message. */
export const UNSAFE_MESSAGE_ID =
  'must be a single path segment: not "." or "..", without "/", "\\" or control characters';

// Control characters are what this pattern is about: C0, DEL.
// biome-ignore lint/suspicious/noControlCharactersInRegex: deliberately matched to refuse them
const FORBIDDEN = /[/\\\u0000-\u001f\u007f]/;

/** True when `id` is a non-empty string usable as one URL path segment after encoding. */
export function isSafeMessageId(id: string): boolean {
  return id !== '' && id !== '.' && id !== '..' && !FORBIDDEN.test(id);
}
