/**
 * The body of POST /messages/:mid/mark-as-failed: `{"reason": "<text>"}`, the reason optional
 * and nothing else beside it (docs/decisions.md#mark-as-failed-body). The body is closed
 * because a key the document does not list (`code`, a misspelt `reasons`) would otherwise be
 * dropped without a word while the caller believes the service kept it.
 */
import { InvalidRequestError } from '../errors.ts';
import { isPlainObject } from '../invoice.ts';

const SHAPE = 'The body, when given, must be {"reason": "<text>"}.';
/** Unknown keys named in one answer: a 1 MB body can hold tens of thousands. */
const NAMED_KEYS = 10;

/** The reason of a parsed body (`{}` when none was sent), or a 400 naming what is wrong. */
export function markAsFailedReason(body: unknown): string | undefined {
  if (!isPlainObject(body)) throw new InvalidRequestError(SHAPE, 'reason');
  const { reason } = body;
  const unknown = Object.keys(body).filter((key) => key !== 'reason');
  const badReason = reason !== undefined && typeof reason !== 'string';
  if (unknown.length === 0) {
    if (reason === undefined || typeof reason === 'string') return reason;
    throw new InvalidRequestError(SHAPE, 'reason');
  }
  const named = unknown.slice(0, NAMED_KEYS).map((key) => JSON.stringify(key.slice(0, 100)));
  const more = unknown.length - named.length;
  const list = `${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  const violations = [
    ...(badReason ? ['reason: must be a string'] : []),
    ...unknown.slice(0, NAMED_KEYS).map((key) => `${key.slice(0, 100)}: not a field of this body`),
    ...(more > 0 ? [`${more} more keys that are not fields of this body`] : []),
  ];
  const only = unknown.length === 1 && !badReason ? unknown[0] : undefined;
  throw new InvalidRequestError(
    `${SHAPE} Unknown ${unknown.length === 1 ? 'key' : 'keys'}: ${list}.`,
    only?.slice(0, 100),
    violations,
  );
}
