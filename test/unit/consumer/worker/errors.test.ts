import { describe, expect, it } from 'vitest';
import { ApiError, SpoolWriteError } from '../../../../src/consumer/api/index.ts';
import {
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
