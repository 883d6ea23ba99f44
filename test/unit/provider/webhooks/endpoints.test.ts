/** Endpoint registry: limits, validation, secrets during rotation, credential headers. */
import { describe, expect, it } from 'vitest';
import { OLD_SECRET_VALIDITY_MS } from '../../../../src/protocol/index.ts';
import { createManualClock } from '../../../../src/provider/clock.ts';
import {
  createEndpointRegistry,
  credentialHeaders,
  type EndpointInput,
  generateSecret,
  validSecrets,
} from '../../../../src/provider/webhooks/endpoints.ts';
import type { Credential } from '../../../../src/provider/webhooks/types.ts';

const PARTY = '0192:999999999';

/** An otherwise valid endpoint with `credential`: each row below breaks one of its fields. */
const withCredential = (credential: Credential): EndpointInput => ({
  name: 'a',
  url: 'https://x',
  credential,
});

function setup() {
  const clock = createManualClock();
  let n = 0;
  return { clock, registry: createEndpointRegistry({ clock, randomId: () => `ep-${n++}` }) };
}

describe('endpoint registry', () => {
  it('keeps a given secret and generates one otherwise', () => {
    const { registry } = setup();
    expect(registry.create(PARTY, { name: 'a', url: 'https://x', secret: 'fixed' }).secret).toBe(
      'fixed',
    );
    expect(registry.create(PARTY, { name: 'b', url: 'http://x' }).secret).toMatch(
      /^whsec_[A-Za-z0-9_-]{43}$/,
    );
    expect(generateSecret()).not.toBe(generateSecret());
  });

  it.each([
    [{ name: ' ', url: 'https://x' }, 'name'],
    [{ name: 'a', url: 'mailto:a@b' }, 'url'],
    [{ name: 'a', url: 'https://x', secret: '' }, 'secret'],
    [withCredential({ type: 'bearer', token: '' }), 'credential.token'],
    [withCredential({ type: 'basic', username: 'a:b', password: '' }), 'credential.username'],
    [withCredential({ type: 'header', name: 'Bad Name', value: 'v' }), 'credential.name'],
    [withCredential({ type: 'header', name: 'SVC-Webhook-Action', value: 'v' }), 'credential.name'],
    [withCredential({ type: 'header', name: 'X-K', value: 'a\r\nb' }), 'credential'],
  ])('rejects %o on field %s', (input, field) => {
    const { registry } = setup();
    expect(() => registry.create(PARTY, input)).toThrow(
      expect.objectContaining({ name: 'InvalidEndpointError', field }),
    );
  });

  it('keeps the old secret valid for 24 hours after a rotation, current first', () => {
    const { registry, clock } = setup();
    const endpoint = registry.create(PARTY, { name: 'a', url: 'https://x', secret: 'one' });
    const two = registry.rotate(PARTY, endpoint.id);
    clock.advance(OLD_SECRET_VALIDITY_MS / 2);
    const three = registry.rotate(PARTY, endpoint.id);
    expect(validSecrets(endpoint, clock.now())).toEqual([three, 'one', two]);
    clock.advance(OLD_SECRET_VALIDITY_MS / 2);
    expect(validSecrets(endpoint, clock.now())).toEqual([three, two]);
    clock.advance(OLD_SECRET_VALIDITY_MS / 2);
    expect(validSecrets(endpoint, clock.now())).toEqual([three]);
  });

  it('scopes endpoints to their participant', () => {
    const { registry } = setup();
    const endpoint = registry.create(PARTY, { name: 'a', url: 'https://x' });
    expect(() => registry.get('0192:1', endpoint.id)).toThrow(
      expect.objectContaining({ name: 'EndpointNotFoundError' }),
    );
    expect(() => registry.rotate('0192:1', endpoint.id)).toThrow(/has no webhook endpoint/);
  });
});

describe('credentialHeaders', () => {
  it('builds the header of SPEC.md section 5.2 for each type', () => {
    expect(credentialHeaders(undefined)).toEqual({});
    expect(credentialHeaders({ type: 'bearer', token: 't' })).toEqual({
      authorization: 'Bearer t',
    });
    expect(
      credentialHeaders({ type: 'basic', username: 'Aladdin', password: 'open sesame' }),
    ).toEqual({
      authorization: 'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==',
    });
    expect(credentialHeaders({ type: 'header', name: 'X-Api-Key', value: 'k' })).toEqual({
      'x-api-key': 'k',
    });
  });
});
