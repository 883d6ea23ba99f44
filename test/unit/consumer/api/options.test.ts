import { describe, expect, it } from 'vitest';
import { resolveApiClientOptions } from '../../../../src/consumer/api/options.ts';

const sleep = async () => {};

describe('resolveApiClientOptions', () => {
  it('applies the documented defaults', () => {
    const resolved = resolveApiClientOptions(
      { baseUrl: 'http://localhost:4000', token: 't' },
      { sleep },
    );
    expect(resolved).toMatchObject({
      origin: 'http://localhost:4000',
      pathPrefix: '',
      timeoutMs: 10_000,
      maxRetries: 4,
      retryBaseDelayMs: 250,
      retryMaxDelayMs: 10_000,
    });
  });

  it('keeps a path prefix of the base URL without its trailing slash', () => {
    const resolved = resolveApiClientOptions(
      { baseUrl: 'https://api.example.com/v1/', token: 't' },
      { sleep },
    );
    expect(resolved.pathPrefix).toBe('/v1');
  });

  it('names the option that is wrong', () => {
    const base = { baseUrl: 'http://localhost', token: 't' };
    expect(() =>
      resolveApiClientOptions({ ...base, baseUrl: 'localhost:4000' }, { sleep }),
    ).toThrow(/baseUrl/);
    expect(() => resolveApiClientOptions({ ...base, token: '' }, { sleep })).toThrow(/token/);
    expect(() => resolveApiClientOptions({ ...base, timeoutMs: 0 }, { sleep })).toThrow(
      /timeoutMs/,
    );
    expect(() => resolveApiClientOptions({ ...base, maxRetries: -1 }, { sleep })).toThrow(
      /maxRetries/,
    );
    expect(() => resolveApiClientOptions({ ...base, retryBaseDelayMs: 1.5 }, { sleep })).toThrow(
      /retryBaseDelayMs/,
    );
  });
});
