/**
 * The identifiers an envelope carries (eventId, action, party, messageId) are stored as text,
 * compared as the dedupe key, written to logs and, for messageId, put in URL paths. Whatever
 * the service's ids look like (UUIDs for messages, `<scheme>:<number>` for parties, anything
 * for events: docs/events.md#envelope), none can hold these, so they are refused where an
 * event enters, the same way on every store:
 *
 * - control characters (C0, DEL, C1): PostgreSQL cannot store U+0000 in text at all, so an
 *   event carrying one would be answered 503 on every delivery until the service gave up, while
 *   SQLite stored it; the others are terminal escapes and line breaks in a log or admin view;
 * - ill-formed UTF-16 (a lone surrogate, from a `\ud800` escape in the JSON): it has no UTF-8
 *   form, so either store turns it into U+FFFD, and two eventIds differing only there would
 *   become one, the second answered 204 as a duplicate and lost;
 * - more than MAX_IDENTIFIER_LENGTH characters: a UUID is 36, and nothing bounded them.
 *
 * Nothing stricter: the service may use any id shape, and a consumer must not refuse a real
 * event because its id looks unusual.
 */

/** The longest identifier accepted: seven UUIDs' worth, so no real id comes near it. */
export const MAX_IDENTIFIER_LENGTH = 256;

// Control characters are what this pattern is about: C0, DEL and C1.
// biome-ignore lint/suspicious/noControlCharactersInRegex: deliberately matched to refuse them
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export const IDENTIFIER_TOO_LONG = `must be at most ${MAX_IDENTIFIER_LENGTH} characters`;
export const IDENTIFIER_HAS_CONTROL =
  'must not contain control characters (U+0000 to U+001F, U+007F to U+009F)';
export const IDENTIFIER_ILL_FORMED =
  'must be well-formed Unicode: a lone surrogate (such as \\ud800) cannot be stored';

/** Why `value` cannot be an identifier, in words fit for a 400 answer; undefined if it can. */
export function identifierProblem(value: string): string | undefined {
  if (value.length > MAX_IDENTIFIER_LENGTH) return IDENTIFIER_TOO_LONG;
  if (CONTROL.test(value)) return IDENTIFIER_HAS_CONTROL;
  if (!value.isWellFormed()) return IDENTIFIER_ILL_FORMED;
  return undefined;
}

/** True when `value` contains a control character (C0, DEL, C1). */
export function hasControlCharacter(value: string): boolean {
  return CONTROL.test(value);
}
