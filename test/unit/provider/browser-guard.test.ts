import { describe, expect, it } from 'vitest';
import { isAllowedHost } from '../../../src/provider/browser-guard.ts';

const allowed = new Set(['provider', 'sandbox.internal']);

describe('isAllowedHost', () => {
  it.each([
    'localhost',
    'localhost:4000',
    'LOCALHOST:4000',
    'console.localhost:4000',
    '127.0.0.1',
    '127.0.0.1:4000',
    '10.0.0.7:4000',
    '[::1]',
    '[::1]:4000',
    '[::ffff:127.0.0.1]:4000',
    'provider:4000',
    'Provider',
    'sandbox.internal:4000',
  ])('accepts %s', (host) => {
    expect(isAllowedHost(host, allowed)).toBe(true);
  });

  it.each([
    // DNS rebinding: a name of the attacker's, re-pointed at this machine.
    'evil.example',
    'evil.example:4000',
    'localhost.evil.example',
    'provider.evil.example:4000',
    // Something around a literal: a lax parser took the part in brackets (issue 26).
    '[::1]evil.example',
    '[::1]evil.example:4000',
    '[::1]:4000evil',
    '[::1]:4000:80',
    '127.0.0.1.evil.example',
    '127.0.0.1evil:4000',
    // Not an IP literal or a name at all.
    '[evil.example]',
    '[127.0.0.1]',
    '[::1',
    '::1',
    'user@localhost',
    'localhost/x',
    'localhost:port',
    'localhost:123456',
    '',
  ])('refuses %j', (host) => {
    expect(isAllowedHost(host, allowed)).toBe(false);
  });
});
