import { describe, expect, it } from 'vitest';
import { ApiError, SpoolWriteError } from '../../../../src/consumer/api/index.ts';
import { ImportTimeoutError } from '../../../../src/consumer/importer/index.ts';
import {
  describeError,
  ERROR_TEXT_LIMIT,
  isPermanent,
  localFault,
  MalformedEventError,
} from '../../../../src/consumer/worker/errors.ts';

const apiError = (status: number | undefined, retryable: boolean) =>
  new ApiError('call failed', { status, body: '', method: 'GET', path: '/messages/m', retryable });

describe('isPermanent', () => {
  it('retries network failures, timeouts, 5xx and 429', () => {
    expect(isPermanent(apiError(undefined, true))).toBe(false);
    expect(isPermanent(apiError(503, true))).toBe(false);
    expect(isPermanent(apiError(429, true))).toBe(false);
  });

  it('dead-letters what the service rejects for good', () => {
    expect(isPermanent(apiError(404, false))).toBe(true);
    expect(isPermanent(apiError(409, false))).toBe(true);
    expect(isPermanent(new MalformedEventError('no formerValue'))).toBe(true);
  });

  it('retries a rejected token: the operator fixes API_TOKEN, the events wait', () => {
    expect(isPermanent(apiError(401, false))).toBe(false);
    expect(isPermanent(apiError(403, false))).toBe(false);
  });

  it('retries anything else, such as a full disk under the importer', () => {
    expect(isPermanent(Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' }))).toBe(false);
  });
});

describe('localFault', () => {
  const errno = (code: string) => Object.assign(new Error(code), { code });

  it('names what to fix for a full or read-only disk, wrapped or not', () => {
    expect(localFault(errno('ENOSPC'))).toMatch(/^ENOSPC: no space left .*DOCUMENTS_DIR.*replay/);
    expect(localFault(new SpoolWriteError('/docs/.incoming/x.part', errno('EROFS')))).toMatch(
      /^EROFS: .*read-only/,
    );
    expect(localFault(new Error('import failed', { cause: errno('EACCES') }))).toMatch(/^EACCES/);
    expect(localFault(Object.assign(new Error('full'), { code: 'SQLITE_FULL' }))).toMatch(
      /DATABASE_URL/,
    );
  });

  it('is silent about everything else, and a spool write is never permanent', () => {
    expect(localFault(errno('ECONNRESET'))).toBeUndefined();
    expect(localFault(apiError(503, true))).toBeUndefined();
    expect(isPermanent(new SpoolWriteError('/docs/x.part', errno('ENOSPC')))).toBe(false);
  });
});

describe('describeError', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
    code: 'ECONNREFUSED',
  });

  it('says what failed underneath, outer error first', () => {
    const fetchFailed = new TypeError('fetch failed', { cause: refused });
    const api = new ApiError('GET /messages/m/documents/core failed: fetch failed', {
      status: undefined,
      body: 'fetch failed',
      method: 'GET',
      path: '/messages/m/documents/core',
      retryable: true,
      cause: fetchFailed,
    });
    expect(describeError(api)).toBe(
      'GET /messages/m/documents/core failed: fetch failed <- TypeError: fetch failed <- ' +
        'Error: connect ECONNREFUSED 127.0.0.1:9',
    );
    expect(describeError(apiError(503, true))).toBe('call failed (HTTP 503)');
  });

  it("names an importer's failure inside a deadline, and both addresses of a refused connection", () => {
    const both = new AggregateError([
      new Error('connect ECONNREFUSED ::1:5432'),
      new Error('connect ECONNREFUSED 127.0.0.1:5432'),
    ]);
    const erp = new Error('ERP unreachable', { cause: both });
    expect(describeError(new ImportTimeoutError('m-1', 500, { cause: erp }))).toBe(
      'ImportTimeoutError: the import of message m-1 did not end within 500 ms <- ' +
        'Error: ERP unreachable <- ' +
        'AggregateError: connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432',
    );
  });

  it('describes what is not an Error, and a cause that is not one', () => {
    expect(describeError('boom')).toBe('boom');
    expect(describeError(undefined)).toBe('undefined');
    expect(describeError(new Error('outer', { cause: 'disk on fire' }))).toBe(
      'Error: outer <- disk on fire',
    );
  });

  it('follows at most four causes, never round a loop', () => {
    let error = new Error('level 0');
    for (let level = 1; level <= 9; level++) error = new Error(`level ${level}`, { cause: error });
    expect(describeError(error)).toBe(
      'Error: level 9 <- Error: level 8 <- Error: level 7 <- Error: level 6 <- Error: level 5 <- ...',
    );
    const looping = new Error('a');
    looping.cause = new Error('b', { cause: looping });
    expect(describeError(looping)).toBe('Error: a <- Error: b');
  });

  it('stays bounded, and a long message leaves room for its causes', () => {
    const huge = new Error('x'.repeat(100_000), { cause: refused });
    const text = describeError(huge);
    expect(text.length).toBeLessThanOrEqual(ERROR_TEXT_LIMIT);
    expect(text).toMatch(/… <- Error: connect ECONNREFUSED 127\.0\.0\.1:9$/);
    const chain = Array.from({ length: 5 }).reduce<Error>(
      (cause, _, i) => new Error(`${i}`.repeat(500), { cause }),
      refused,
    );
    expect(describeError(chain).length).toBeLessThanOrEqual(ERROR_TEXT_LIMIT);
  });
});
