import { describe, expect, it } from 'vitest';
import { resolveApiClientOptions } from '../../../../src/consumer/api/options.ts';

const sleep = async () => {};
const defaults = { sleep, spoolDir: '/tmp/spool' };

describe('resolveApiClientOptions', () => {
  it('applies the documented defaults', () => {
    const resolved = resolveApiClientOptions(
      { baseUrl: 'http://localhost:4000', token: 't' },
      defaults,
    );
    expect(resolved).toMatchObject({
      origin: 'http://localhost:4000',
      pathPrefix: '',
      timeoutMs: 10_000,
      deadlineMs: 60_000,
      minBytesPerSecond: 65_536,
      maxRetries: 4,
      retryBaseDelayMs: 250,
      retryMaxDelayMs: 10_000,
      spoolDir: '/tmp/spool',
      maxDocumentBytes: 104_857_600,
      memoryDocumentBytes: 1_048_576,
      memoryBudgetBytes: 16_777_216,
    });
  });

  it('keeps a path prefix of the base URL without its trailing slash', () => {
    const resolved = resolveApiClientOptions(
      { baseUrl: 'https://api.example.com/v1/', token: 't' },
      defaults,
    );
    expect(resolved.pathPrefix).toBe('/v1');
  });

  it('names the option that is wrong', () => {
    const base = { baseUrl: 'http://localhost', token: 't' };
    expect(() => resolveApiClientOptions({ ...base, baseUrl: 'localhost:4000' }, defaults)).toThrow(
      /baseUrl/,
    );
    expect(() => resolveApiClientOptions({ ...base, token: '' }, defaults)).toThrow(/token/);
    expect(() => resolveApiClientOptions({ ...base, timeoutMs: 0 }, defaults)).toThrow(/timeoutMs/);
    expect(() => resolveApiClientOptions({ ...base, deadlineMs: 0 }, defaults)).toThrow(
      /deadlineMs/,
    );
    expect(() => resolveApiClientOptions({ ...base, minBytesPerSecond: 0.5 }, defaults)).toThrow(
      /minBytesPerSecond/,
    );
    expect(() => resolveApiClientOptions({ ...base, maxRetries: -1 }, defaults)).toThrow(
      /maxRetries/,
    );
    expect(() => resolveApiClientOptions({ ...base, retryBaseDelayMs: 1.5 }, defaults)).toThrow(
      /retryBaseDelayMs/,
    );
  });
});
