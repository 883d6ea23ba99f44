/** What a consumer receives on the wire, and which answers count as delivered (docs/signature.md#webhook-request, docs/signature.md#verify-every-request, docs/retries.md#consumer-answer). */
import { describe, expect, it } from 'vitest';
import { OLD_SECRET_VALIDITY_MS, verifySignature } from '../../../../src/protocol/index.ts';
import { dispatcherForEachTest, makeEnvelope, makeRouting, PARTY } from './fixtures.ts';
import { refusedUrl } from './recording-endpoint.ts';

const setup = dispatcherForEachTest({ status: 204 });

function verify(secrets: string[], index = 0) {
  const request = setup.endpoint.requests[index];
  if (request === undefined) throw new Error(`no request ${index}`);
  return verifySignature({
    header: request.headers['svc-webhook-signature'] as string,
    body: request.body,
    secrets,
    toleranceSeconds: 300,
    now: () => setup.clock.now(),
  });
}

describe('webhook request', () => {
  it('is a signed POST with exactly the headers of SPEC.md 4.2 and the envelope as body', async () => {
    const { secret } = setup.dispatcher.createEndpoint(PARTY, {
      name: 'erp',
      url: setup.endpoint.url,
    });
    const envelope = makeEnvelope({ action: 'deliveryNotified', transfer: 'outbound' });
    setup.dispatcher.publish(envelope, makeRouting({ category: 'outbound' }));
    await setup.dispatcher.idle();

    expect(setup.endpoint.requests).toHaveLength(1);
    const request = setup.endpoint.requests[0];
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/webhooks');
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Service-Webhooks/2',
      'svc-webhook-event-id': envelope.eventId,
      'svc-webhook-action': 'deliveryNotified',
      'svc-webhook-transfer': 'outbound',
    });
    expect(request?.headers['svc-webhook-signature']).toMatch(/^t=\d+,v0=[0-9a-f]{64}$/);
    expect(request?.headers.authorization).toBeUndefined();
    expect(verify([secret]).timestamp).toBe(Math.floor(setup.clock.now() / 1000));
    expect(JSON.parse(request?.body.toString('utf8') ?? '')).toEqual(envelope);
    expect(() => verify(['whsec_other'])).toThrow(/No v0 signature matches/);
  });

  it.each([
    [{ type: 'bearer', token: 'tok-123' } as const, 'authorization', 'Bearer tok-123'],
    [
      { type: 'basic', username: 'erp', password: 'p:ss' } as const,
      'authorization',
      `Basic ${Buffer.from('erp:p:ss').toString('base64')}`,
    ],
    [{ type: 'header', name: 'X-Api-Key', value: 'k-9' } as const, 'x-api-key', 'k-9'],
  ])('adds the %o credential header', async (credential, header, value) => {
    setup.dispatcher.createEndpoint(PARTY, { name: 'erp', url: setup.endpoint.url, credential });
    setup.dispatcher.publish(makeEnvelope(), makeRouting());
    await setup.dispatcher.idle();
    expect(setup.endpoint.requests[0]?.headers[header]).toBe(value);
    expect(setup.endpoint.requests[0]?.headers['svc-webhook-signature']).toBeDefined();
  });

  it('signs with both secrets for 24 hours after a rotation, then with the new one only', async () => {
    const { endpoint: view, secret: oldSecret } = setup.dispatcher.createEndpoint(PARTY, {
      name: 'erp',
      url: setup.endpoint.url,
    });
    const { secret: newSecret } = setup.dispatcher.rotateSecret(PARTY, view.id);
    expect(newSecret).not.toBe(oldSecret);

    setup.dispatcher.publish(makeEnvelope(), makeRouting());
    await setup.dispatcher.idle();
    expect(setup.endpoint.requests[0]?.headers['svc-webhook-signature']).toMatch(
      /^t=\d+,v0=\w{64},v0=\w{64}$/,
    );
    expect(() => verify([oldSecret], 0)).not.toThrow();
    expect(() => verify([newSecret], 0)).not.toThrow();

    setup.clock.advance(OLD_SECRET_VALIDITY_MS);
    setup.dispatcher.publish(makeEnvelope(), makeRouting());
    await setup.dispatcher.idle();
    expect(setup.endpoint.requests[1]?.headers['svc-webhook-signature']).toMatch(
      /^t=\d+,v0=\w{64}$/,
    );
    expect(() => verify([newSecret], 1)).not.toThrow();
    expect(() => verify([oldSecret], 1)).toThrow(/No v0 signature matches/);
  });
});

describe('answers', () => {
  it.each([200, 201, 202, 204])('%i is a success', async (status) => {
    setup.endpoint.answer({ status, body: status === 204 ? '' : 'ok' });
    setup.dispatcher.createEndpoint(PARTY, { name: 'erp', url: setup.endpoint.url });
    const envelope = makeEnvelope();
    setup.dispatcher.publish(envelope, makeRouting());
    await setup.dispatcher.idle();
    const view = setup.dispatcher.delivery(envelope.eventId);
    expect(view?.state).toBe('succeeded');
    expect(view?.attempts).toHaveLength(1);
    expect(view?.attempts[0]?.statusCode).toBe(status);
    expect(setup.clock.pendingTimers()).toBe(0);
  });

  it.each([
    [302, { location: 'http://127.0.0.1:1/elsewhere' }],
    [203, {}],
    [206, {}],
    [500, {}],
  ])(
    '%i is a failed attempt, retried in a minute, and redirects are not followed',
    async (status, headers) => {
      setup.endpoint.answer({ status, headers, body: `answer ${status} ${'x'.repeat(300)}` });
      setup.dispatcher.createEndpoint(PARTY, { name: 'erp', url: setup.endpoint.url });
      const envelope = makeEnvelope();
      setup.dispatcher.publish(envelope, makeRouting());
      await setup.dispatcher.idle();
      const view = setup.dispatcher.delivery(envelope.eventId);
      expect(setup.endpoint.requests).toHaveLength(1);
      expect(view?.state).toBe('pending');
      expect(view?.attempts[0]?.statusCode).toBe(status);
      expect(view?.attempts[0]?.bodyStart).toHaveLength(200);
      expect(view?.attempts[0]?.bodyStart.startsWith(`answer ${status}`)).toBe(true);
      expect(view?.nextAttemptAt).toBe(new Date(setup.clock.now() + 60_000).toISOString());
    },
  );

  it('a refused connection is a failed attempt with the error in the log', async () => {
    setup.dispatcher.createEndpoint(PARTY, { name: 'gone', url: await refusedUrl() });
    const envelope = makeEnvelope();
    setup.dispatcher.publish(envelope, makeRouting());
    await setup.dispatcher.idle();
    const attempt = setup.dispatcher.delivery(envelope.eventId)?.attempts[0];
    expect(attempt?.statusCode).toBeUndefined();
    expect(attempt?.error).toMatch(/ECONNREFUSED/);
    expect(setup.dispatcher.delivery(envelope.eventId)?.state).toBe('pending');
  });

  it('an answer after 5.5 s (real time) is a timeout', async () => {
    setup.endpoint.answer({ status: 204, delayMs: 5_500 });
    setup.dispatcher.createEndpoint(PARTY, { name: 'slow', url: setup.endpoint.url });
    const envelope = makeEnvelope();
    setup.dispatcher.publish(envelope, makeRouting());
    await setup.dispatcher.idle();
    const attempt = setup.dispatcher.delivery(envelope.eventId)?.attempts[0];
    expect(attempt?.error).toMatch(/timeout/);
    expect(attempt?.responseTimeMs).toBeGreaterThanOrEqual(4_900);
    expect(attempt?.responseTimeMs).toBeLessThan(5_500);
    expect(setup.dispatcher.delivery(envelope.eventId)?.state).toBe('pending');
  });
});
