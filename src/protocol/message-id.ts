/**
 * Message identifiers travel in URL paths (`/messages/:mid/...`). encodeURIComponent leaves
 * `.` and `..` unchanged, so an id of `..` would turn `GET /messages/../documents/core` into
 * another route at a normalising gateway, with the API token attached. The service's ids are
 * UUID-shaped; anything that could not be one safe path segment is refused where it enters
 * (the envelope) and again where it leaves (the API client). A message id is an identifier as
 * well (identifier.ts): encodeURIComponent throws on a lone surrogate, so the worker would fail
 * on such an id over and over instead of refusing it once.
 */
import { identifierProblem } from './identifier.ts';

/** Why an id was refused, in words fit for a 400 answer or an error message. */
export const UNSAFE_MESSAGE_ID =
  'must be a single path segment: not "." or "..", without "/", "\\", control characters or lone surrogates';

/** True when `id` is not `.` or `..` and has no `/` or `\`: the path part of the rule alone. */
export function isPathSegment(id: string): boolean {
  return id !== '.' && id !== '..' && !/[/\\]/.test(id);
}

/** True when `id` is a non-empty string usable as one URL path segment after encoding. */
export function isSafeMessageId(id: string): boolean {
  return id !== '' && isPathSegment(id) && identifierProblem(id) === undefined;
}
