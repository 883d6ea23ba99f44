import { describe, expect, it } from 'vitest';
import { createAuthenticate } from '../../../../../src/consumer/http/webhook/authenticate.ts';
import { signatureHeader } from '../../../../../src/protocol/index.ts';

const NOW = 1_800_000_000_000;
const body = Buffer.from('{"eventId":"evt-1"}');
const signed = (secret: string, bytes: Buffer = body) =>
  signatureHeader({ secrets: [secret], timestamp: NOW / 1000, body: bytes });

function authenticateWith(credential?: { type: 'bearer'; token: string }) {
  return createAuthenticate({
    config: {
      webhookSecrets: ['new-secret', 'old-secret'],
      webhookToleranceSeconds: 300,
      webhookCredential: credential,
    },
    now: () => NOW,
  });
}

describe('authentication of the raw bytes', () => {
  it('passes a body signed with any configured secret', () => {
    const authenticate = authenticateWith();
    for (const secret of ['new-secret', 'old-secret']) {
      expect(authenticate({ signatureHeader: signed(secret), body, headers: {} })).toBeUndefined();
    }
  });

  it('refuses a body changed after signing, and one signed with another secret (401)', () => {
    const authenticate = authenticateWith();
    const changed = authenticate({
      signatureHeader: signed('new-secret'),
      body: Buffer.from('{"eventId":"evt-2"}'),
      headers: {},
    });
    expect(changed?.problem).toMatchObject({
      status: 401,
      type: 'urn:webhook-consumer:signature:signature_mismatch',
    });
    const stranger = authenticate({ signatureHeader: signed('other'), body, headers: {} });
    expect(stranger?.outcome).toBe('unauthorized');
  });

  it('checks the credential only after the signature, and refuses a wrong one (401)', () => {
    const authenticate = authenticateWith({ type: 'bearer', token: 'right-token' });
    const ok = { signatureHeader: signed('new-secret'), body };
    expect(
      authenticate({ ...ok, headers: { authorization: 'Bearer right-token' } }),
    ).toBeUndefined();
    const wrong = authenticate({ ...ok, headers: { authorization: 'Bearer wrong-token' } });
    expect(wrong?.problem).toMatchObject({ status: 401, title: 'Invalid credential' });
    const unsigned = authenticate({
      signatureHeader: signed('other'),
      body,
      headers: { authorization: 'Bearer right-token' },
    });
    expect(unsigned?.problem.title).toBe('Invalid signature');
  });
});
