/**
 * Which failures of the PostgreSQL store mean "the database cannot be used right now" (a
 * restart, a failover, a network cut, every connection slot taken) rather than "the database
 * refused this statement". The store reports the first kind as a StoreError, which every caller
 * already treats as passing: the webhook route answers 503 (the service retries), the worker
 * puts the event back with a backoff, a claim that cannot be renewed is given up after its
 * lease, readiness fails.
 */
import pg from 'pg';
import { StoreError } from '../store.ts';

/**
 * SQLSTATEs of a server that is going away, not accepting connections, or no longer a primary
 * (https://www.postgresql.org/docs/current/errcodes-appendix.html). By class: 08 connection
 * exception, 53 insufficient resources (53300: max_connections reached).
 */
const UNAVAILABLE_CLASSES = ['08', '53'];
const UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  // A demoted primary, a hot standby, or default_transaction_read_only: writes are refused.
  '25006',
  '57P01', // admin_shutdown: pg_ctl stop -m fast, a failover
  '57P02', // crash_shutdown: another backend crashed, the server restarts
  '57P03', // cannot_connect_now: starting up, shutting down, or in recovery
  '57P05', // idle_session_timeout
]);

/** Socket failures (Node's error codes) on the way to the server. */
const SOCKET_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * node-postgres and its pool report a lost or hung connection with plain Errors, told apart by
 * message only (pg/lib/client.js, pg-pool/index.js, version 8).
 */
const CLIENT_FAILURE =
  /^(Connection terminated|timeout exceeded when trying to connect|timeout expired|Query read timeout|Client has encountered a connection error|Client was closed)/;

/** Whether `error` says the database is out of reach or not accepting writes now. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) {
    const code = error.code ?? '';
    return UNAVAILABLE_CODES.has(code) || UNAVAILABLE_CLASSES.includes(code.slice(0, 2));
  }
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  return CLIENT_FAILURE.test(error.message);
}

/**
 * Whether the connection that failed with `error` can be lent again. The server's refusal of a
 * statement (a DatabaseError, other than one that ends the session) leaves it usable; anything
 * else (the socket failed, a query timed out and may still be running) does not.
 */
export function connectionStillUsable(error: unknown): boolean {
  if (!(error instanceof pg.DatabaseError)) return false;
  return error.severity !== 'FATAL' && error.severity !== 'PANIC';
}

/** `error` as a StoreError when the database is unavailable; unchanged otherwise. */
export function asStoreError(error: unknown): unknown {
  if (error instanceof StoreError || !isUnavailable(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  const code = error instanceof pg.DatabaseError && error.code ? ` (SQLSTATE ${error.code})` : '';
  return new StoreError(`PostgreSQL is unavailable: ${reason}${code}`, { cause: error });
}

/**
 * The same methods, each reporting an unavailable database as a StoreError (asStoreError):
 * one place for every query of the store, whichever module runs it.
 */
export function reportingUnavailable<T extends object>(methods: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(methods)) {
    wrapped[name] =
      typeof method === 'function'
        ? async (...args: unknown[]) => {
            try {
              return await (method as (...a: unknown[]) => Promise<unknown>)(...args);
            } catch (error) {
              throw asStoreError(error);
            }
          }
        : method;
  }
  return wrapped as T;
}
