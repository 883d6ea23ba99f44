/**
 * Which failures of PostgreSQL the store reports as "unavailable" (a StoreError: 503, retry)
 * and which connections it lends again. The errors are built as node-postgres builds them.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  asStoreError,
  connectionStillUsable,
  isUnavailable,
  reportingUnavailable,
} from '../../../../src/consumer/store/postgres/unavailable.ts';
import { StoreError } from '../../../../src/consumer/store/store.ts';

function serverError(code: string, severity = 'ERROR') {
  const error = new pg.DatabaseError(`server said ${code}`, 0, 'error');
  error.code = code;
  error.severity = severity;
  return error;
}

function socketError(code: string) {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, syscall: 'connect' });
}

describe('isUnavailable', () => {
  it.each([
    ['57P01', 'FATAL'], // admin_shutdown: a restart, a failover
    ['57P03', 'FATAL'], // cannot_connect_now: starting up
    ['53300', 'FATAL'], // too_many_connections
    ['08006', 'FATAL'], // connection_failure
    ['25006', 'ERROR'], // read_only_sql_transaction: a demoted primary
  ])('a server error %s is', (code, severity) => {
    expect(isUnavailable(serverError(code, severity))).toBe(true);
  });

  it.each(['23505', '42P01', '22P02', '40001'])('a server error %s is not', (code) => {
    expect(isUnavailable(serverError(code))).toBe(false);
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH'])('a socket %s is', (code) => {
    expect(isUnavailable(socketError(code))).toBe(true);
  });

  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'timeout exceeded when trying to connect',
    'Query read timeout',
    'Client has encountered a connection error and is not queryable',
  ])('node-postgres saying "%s" is', (message) => {
    expect(isUnavailable(new Error(message))).toBe(true);
  });

  it('a bug of ours is not', () => {
    expect(isUnavailable(new TypeError('cannot read properties of undefined'))).toBe(false);
    expect(isUnavailable('a string')).toBe(false);
  });
});

describe('connectionStillUsable', () => {
  it('after a refused statement, yes; after a lost or hung connection, no', () => {
    expect(connectionStillUsable(serverError('25006'))).toBe(true);
    expect(connectionStillUsable(serverError('23505'))).toBe(true);
    expect(connectionStillUsable(serverError('57P01', 'FATAL'))).toBe(false);
    expect(connectionStillUsable(new Error('Query read timeout'))).toBe(false);
    expect(connectionStillUsable(socketError('ECONNRESET'))).toBe(false);
  });
});

describe('asStoreError and reportingUnavailable', () => {
  it('wrap an unavailable database in a StoreError that keeps the cause and its SQLSTATE', () => {
    const cause = serverError('25006');
    const error = asStoreError(cause);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toMatch(
      /unavailable: server said 25006 \(SQLSTATE 25006\)/,
    );
    expect((error as StoreError).cause).toBe(cause);
  });

  it('leave every other error as it is', async () => {
    const bug = serverError('42P01');
    const methods = reportingUnavailable({
      refused: async () => {
        throw bug;
      },
      away: async () => {
        throw socketError('ECONNREFUSED');
      },
      fine: async (n: number) => n + 1,
    });
    await expect(methods.refused()).rejects.toBe(bug);
    await expect(methods.away()).rejects.toBeInstanceOf(StoreError);
    expect(await methods.fine(1)).toBe(2);
  });
});
