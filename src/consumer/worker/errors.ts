import { ApiError } from '../api/index.ts';
import { printableText } from '../text/error-text.ts';

/** The event itself is unusable (a status event without formerValue, say): retrying won't help. */
export class MalformedEventError extends Error {
  override readonly name = 'MalformedEventError';
}

/**
 * 401 and 403 say the consumer's credentials are wrong (API_TOKEN), not that the event is:
 * retrying until an operator fixes the token beats dead-lettering every event meanwhile.
 */
const CONFIGURATION_STATUSES: ReadonlySet<number> = new Set([401, 403]);

/**
 * The one place the worker decides retry or dead-letter. A transient API or network failure
 * is retried; a rejection by the service (4xx other than 429, 401 and 403) or a malformed
 * event is not.
 */
export function isPermanent(error: unknown): boolean {
  if (error instanceof MalformedEventError) return true;
  if (error instanceof ApiError) {
    return !error.retryable && !CONFIGURATION_STATUSES.has(error.status ?? 0);
  }
  return false;
}

const DOCUMENTS = 'DOCUMENTS_DIR (or wherever the importer writes)';

/**
 * The local faults an operator must fix, by error code: a disk that is full or refuses writes
 * (the documents folder, the spool under it, or the database's file system). None is the
 * message's fault, so none is ever reported to the service; the event is retried, and after
 * WORKER_MAX_ATTEMPTS dead-lettered with this hint, to be replayed once the host is fixed.
 */
const LOCAL_FAULTS: Readonly<Record<string, string>> = {
  ENOSPC: `no space left on the device of ${DOCUMENTS}`,
  EDQUOT: `disk quota exceeded on the device of ${DOCUMENTS}`,
  EROFS: `${DOCUMENTS} is on a read-only file system`,
  EACCES: `no permission to write in ${DOCUMENTS}`,
  EPERM: `no permission to write in ${DOCUMENTS}`,
  EIO: `an input/output error of the disk of ${DOCUMENTS}`,
  SQLITE_FULL: 'no space left on the device of the database (DATABASE_URL)',
};

/**
 * What the operator must fix when `error` (or what it wraps) is a local fault; undefined
 * otherwise. Logged with the retry and the dead-letter lines, as `localFault`.
 */
export function localFault(error: unknown): string | undefined {
  for (let current = error, depth = 0; current != null && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code in LOCAL_FAULTS) {
      return `${code}: ${LOCAL_FAULTS[code]}; fix it, then replay dead events (npm run replay -- --dead)`;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** How many causes describeError follows past the error itself. */
export const ERROR_CAUSE_DEPTH = 4;
/** The longest text describeError returns: a log field or a stored lastError, not a dump. */
export const ERROR_TEXT_LIMIT = 1000;
/** The longest text of one link, so a long first message cannot push its causes out. */
const LINK_LIMIT = 400;

/**
 * One line for a log field or a stored lastError: the error, then each error it wraps, outer
 * first: `ApiError: GET /messages/m failed: fetch failed <- TypeError: fetch failed <- Error:
 * connect ECONNREFUSED 127.0.0.1:9`. The wrapped errors say what actually failed (undici's
 * `fetch failed` says only that something did). At most ERROR_CAUSE_DEPTH causes, each link
 * and the whole bounded (ERROR_TEXT_LIMIT), and a cause that loops back is not followed. Any
 * error may quote another system (an importer's ERP answer), so the text is made printable
 * too: no escape sequences or line breaks in a stored lastError or a log field (error-text.ts).
 */
export function describeError(error: unknown): string {
  const links = [printableText(describeOne(error), LINK_LIMIT)];
  const seen = new Set<unknown>([error]);
  for (let cause = causeOf(error); cause != null && !seen.has(cause); cause = causeOf(cause)) {
    if (links.length > ERROR_CAUSE_DEPTH) {
      links.push('...');
      break;
    }
    seen.add(cause);
    links.push(printableText(describeOne(cause), LINK_LIMIT));
  }
  return printableText(links.join(' <- '), ERROR_TEXT_LIMIT);
}

function describeOne(error: unknown): string {
  if (error instanceof ApiError) {
    return `${error.message}${error.status === undefined ? '' : ` (HTTP ${error.status})`}`;
  }
  if (!(error instanceof Error)) return String(error);
  // A connection tried on IPv4 and IPv6 at once fails with an AggregateError of both, and
  // often no message of its own.
  const inner = (error as { errors?: unknown }).errors;
  if (error.message === '' && Array.isArray(inner) && inner.length > 0) {
    const some = inner.slice(0, 3).map((e) => (e instanceof Error ? e.message : String(e)));
    return `${error.name}: ${some.join('; ')}${inner.length > 3 ? '; ...' : ''}`;
  }
  return `${error.name}: ${error.message}`;
}

function causeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null
    ? (error as { cause?: unknown }).cause
    : undefined;
}
