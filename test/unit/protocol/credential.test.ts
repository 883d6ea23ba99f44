/**
 * The optional endpoint credential (docs/signature.md#credential) is one rule in src/protocol: the
 * simulator sends exactly the header the consumer expects, for every kind of credential.
 */
import { describe, expect, it } from 'vitest';
import { createCredentialCheck } from '../../../src/consumer/http/webhook/credential.ts';
import { credentialHeader, type WebhookCredential } from '../../../src/protocol/index.ts';
import { credentialHeaders } from '../../../src/provider/webhooks/endpoints.ts';

const CREDENTIALS: WebhookCredential[] = [
  { type: 'bearer', token: 'tok-123' },
  { type: 'basic', username: 'svc', password: 'p:ss word' },
  { type: 'header', name: 'X-Api-Key', value: 'key-456' },
];

describe('endpoint credential', () => {
  it('bearer, basic and custom header as the service defines them', () => {
    expect(CREDENTIALS.map(credentialHeader)).toEqual([
      { name: 'authorization', value: 'Bearer tok-123' },
      { name: 'authorization', value: `Basic ${Buffer.from('svc:p:ss word').toString('base64')}` },
      { name: 'x-api-key', value: 'key-456' },
    ]);
  });

  it('the header the simulator sends is the one the consumer accepts, and only that', () => {
    for (const credential of CREDENTIALS) {
      const check = createCredentialCheck(credential);
      expect(check(credentialHeaders(credential))).toBe(true);
      const { name } = credentialHeader(credential);
      expect(check({ [name]: 'something else' })).toBe(false);
      expect(check({})).toBe(false);
    }
  });
});
