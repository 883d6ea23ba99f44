/**
 * A copy of a value a fork module hands the consumer (an error it throws, the fields of a log
 * line) with every string in it passed through `text`: the error's message, stack, reason and
 * own fields, the errors it wraps (`cause`, an AggregateError's `errors`), and nested objects
 * such as an HTTP library's request config with its headers.
 *
 * The module's own objects are never changed (it may throw one error object twice). An error's
 * copy keeps its prototype, so the consumer still tells a PermanentImportError from any other,
 * and its `code` (`ENOSPC`), status and other fields; its message and stack are own data
 * properties, so an error whose prototype reads them from internal slots (a DOMException, the
 * AbortError of a signal) reads as well in its copy.
 */

/** How a string is made fit: secrets hidden, and for stored text, cleaned and bounded. */
export type StringRedactor = (text: string) => string;

/** Deeper than this, an object is replaced by a note: what is not read cannot leak. */
const MAX_DEPTH = 6;
const TOO_DEEP = '[not shown: nested too deep]';

/** Fields read from an error even when its prototype holds them (a DOMException's). */
const INHERITED_FIELDS = ['name', 'code'] as const;

/**
 * `value` with every string in it redacted: strings by `text`, an error's message by
 * `message` (bounded where it is stored), arrays and objects copied. Numbers, booleans,
 * functions and binary data are kept as they are.
 */
export function redactValue(
  value: unknown,
  redact: { text: StringRedactor; message: StringRedactor },
): unknown {
  return copy(value, redact, 0, new WeakMap());
}

type Redact = Parameters<typeof redactValue>[1];

function copy(value: unknown, redact: Redact, depth: number, seen: WeakMap<object, unknown>) {
  if (typeof value === 'string') return redact.text(value);
  if (typeof value !== 'object' || value === null) return value;
  if (ArrayBuffer.isView(value) || value instanceof Date || value instanceof RegExp) return value;
  const done = seen.get(value);
  if (done !== undefined) return done;
  if (depth >= MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    seen.set(value, items);
    for (const item of value) items.push(copy(item, redact, depth + 1, seen));
    return items;
  }
  if (value instanceof Error) return copyError(value, redact, depth, seen);
  // An object that says how it is written (a URL: its href, userinfo and all) is copied as that.
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    return copy(
      attempt(() => toJSON.call(value)),
      redact,
      depth + 1,
      seen,
    );
  }
  // Any other object (a plain one, a class instance such as a headers object) becomes a plain
  // object of its own enumerable fields: enough for a log line, and nothing hidden in a getter.
  const fields: Record<string, unknown> = {};
  seen.set(value, fields);
  for (const key of Object.keys(value)) {
    const field = attempt(() => (value as Record<string, unknown>)[key]);
    fields[key] = copy(field, redact, depth + 1, seen);
  }
  return fields;
}

function copyError(
  error: Error,
  redact: Redact,
  depth: number,
  seen: WeakMap<object, unknown>,
): Error {
  const clone = Object.create(Object.getPrototypeOf(error)) as Error;
  seen.set(error, clone);
  for (const key of Reflect.ownKeys(error)) {
    if (key === 'message' || key === 'stack') continue;
    const field = readField(error, key);
    // A `reason` (PermanentImportError's) is what the service is told: bounded as a message.
    const value =
      key === 'reason' && typeof field === 'string'
        ? redact.message(field)
        : copy(field, redact, depth + 1, seen);
    const enumerable = Object.getOwnPropertyDescriptor(error, key)?.enumerable ?? false;
    Object.defineProperty(clone, key, { value, writable: true, enumerable, configurable: true });
  }
  for (const key of INHERITED_FIELDS) {
    const field = readField(error, key);
    if (!Object.hasOwn(clone, key) && field !== undefined) hidden(clone, key, field);
  }
  const message = redact.message(String(readField(error, 'message') ?? ''));
  hidden(clone, 'message', message);
  hidden(clone, 'stack', stackOf(error, clone.name, message, redact.text));
  return clone;
}

/**
 * The copy's stack: its own first line (the redacted message, so a 60 KB message is not logged
 * again in the stack), then the frames of the original's, redacted too.
 */
function stackOf(error: Error, name: unknown, message: string, text: StringRedactor): string {
  const stack = readField(error, 'stack');
  const head = message === '' ? String(name) : `${String(name)}: ${message}`;
  if (typeof stack !== 'string') return head;
  const frames = stack.indexOf('\n    at ');
  return frames === -1 ? head : `${head}${text(stack.slice(frames))}`;
}

/** A field read from the original error, or undefined when reading it throws. */
function readField(error: Error, key: PropertyKey): unknown {
  return attempt(() => (error as unknown as Record<PropertyKey, unknown>)[key]);
}

/** What `read` returns, or undefined when it throws: a getter of the module's must not stop us. */
function attempt(read: () => unknown): unknown {
  try {
    return read();
  } catch {
    return undefined;
  }
}

function hidden(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    writable: true,
    enumerable: false,
    configurable: true,
  });
}
