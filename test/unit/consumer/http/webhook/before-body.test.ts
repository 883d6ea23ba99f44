import { describe, expect, it } from 'vitest';
import {
  declaredSizeCheck,
  encodingCheck,
  signatureHeaderCheck,
} from '../../../../../src/consumer/http/webhook/before-body.ts';
import { signatureHeader } from '../../../../../src/protocol/index.ts';

const NOW = 1_800_000_000_000;
const now = () => NOW;

describe('the checks before any body byte is read', () => {
  it('passes a fresh signature header without looking at a body', () => {
    const header = signatureHeader({ secrets: ['s'], timestamp: NOW / 1000, body: '{}' });
    expect(signatureHeaderCheck({ header, toleranceSeconds: 300, now })).toBeUndefined();
  });

  it('refuses a missing or stale signature header with 401 and a stable reason', () => {
    const missing = signatureHeaderCheck({ header: undefined, toleranceSeconds: 300, now });
    expect(missing?.outcome).toBe('unauthorized');
    expect(missing?.problem).toMatchObject({
      status: 401,
      title: 'Invalid signature',
      type: 'urn:webhook-consumer:signature:missing_header',
    });
    const stale = signatureHeader({ secrets: ['s'], timestamp: NOW / 1000 - 301, body: '{}' });
    expect(signatureHeaderCheck({ header: stale, toleranceSeconds: 300, now })?.problem.type).toBe(
      'urn:webhook-consumer:signature:timestamp_too_old',
    );
  });

  it('refuses any Content-Encoding but identity with 415, asking for identity', () => {
    for (const ok of [undefined, '', 'identity', ' Identity ']) {
      expect(encodingCheck(ok)).toBeUndefined();
    }
    const gzip = encodingCheck('gzip');
    expect(gzip?.outcome).toBe('unsupported_encoding');
    expect(gzip?.problem.status).toBe(415);
    expect(gzip?.headers).toEqual({ 'Accept-Encoding': 'identity' });
  });

  it('refuses a declared size over the limit with 413 naming WEBHOOK_MAX_BODY_BYTES', () => {
    expect(declaredSizeCheck(undefined, 10)).toBeUndefined();
    expect(declaredSizeCheck(10, 10)).toBeUndefined();
    const over = declaredSizeCheck(11, 10);
    expect(over?.outcome).toBe('too_large');
    expect(over?.problem).toEqual({
      status: 413,
      title: 'Body too large',
      detail: 'The body exceeds WEBHOOK_MAX_BODY_BYTES (10 bytes).',
    });
  });
});
