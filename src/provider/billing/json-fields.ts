/**
 * Reading a field of a body that may be any JSON (a document the network let through with
 * errors, docs/events.md#documents-with-errors): the value when it has the type asked for,
 * else undefined (an empty object for `object`), never an exception.
 */
import { isPlainObject } from '../invoice.ts';

/** A non-blank string. */
export const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;
/** A finite number. */
export const number = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;
/** A JSON object, or an empty one, so that its fields read as undefined. */
export const object = (value: unknown): Record<string, unknown> =>
  isPlainObject(value) ? value : {};
