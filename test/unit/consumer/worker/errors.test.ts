import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/consumer/api/index.ts';
import { isPermanent, MalformedEventError } from '../../../../src/consumer/worker/errors.ts';

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
