/** Test events (docs/webhook-endpoints.md#test-events): straight to the chosen endpoint, routing not applied. */
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../../../src/protocol/index.ts';
import { BODY_WITHHELD } from '../../../../src/provider/webhooks/credential-redaction.ts';
import { dispatcherForEachTest, makeEnvelope, makeRouting, PARTY } from './fixtures.ts';

const setup = dispatcherForEachTest({ status: 202, body: 'queued for processing' });

it('goes to the chosen endpoint even when routing would not send it, signed and with test=true', async () => {
  setup.dispatcher.createEndpoint(PARTY, { name: 'first', url: `${setup.endpoint.url}/first` });
  const { endpoint: chosen, secret } = setup.dispatcher.createEndpoint(PARTY, {
    name: 'second',
    url: setup.endpoint.url,
    credential: { type: 'bearer', token: 'tok' },
  });
  setup.dispatcher.setRules(PARTY, 'inbound', [{ target: null }]);
  setup.dispatcher.setRules(PARTY, 'outbound', []);

  const result = await setup.dispatcher.sendTestEvent(PARTY, chosen.id, {
    action: 'deliveryNotified',
  });

  // The endpoint has a credential, so the start of its answer is withheld (issue 26); an
  // endpoint without one shows it (below).
  expect(result).toMatchObject({ statusCode: 202, success: true, bodyStart: BODY_WITHHELD });
  expect(result.responseTimeMs).toBeGreaterThanOrEqual(0);
  expect(setup.endpoint.requests).toHaveLength(1);
  const request = setup.endpoint.requests[0];
  expect(request?.path).toBe('/webhooks');
  expect(request?.headers.authorization).toBe('Bearer tok');
  expect(request?.body.toString('utf8')).toBe(result.request.body);
  verifySignature({
    header: request?.headers['svc-webhook-signature'] as string,
    body: request?.body ?? '',
    secrets: [secret],
    toleranceSeconds: 300,
    now: () => setup.clock.now(),
  });
  const body = JSON.parse(result.request.body);
  expect(body).toMatchObject({
    test: true,
    party: PARTY,
    action: 'deliveryNotified',
    transfer: 'inbound',
  });
  expect(body.data).toMatchObject({
    uniqueId: body.messageId,
    transfer: 'inbound',
    status: 'pendingdelivery',
  });
  expect(body.data.documents[0]).toMatchObject({ name: 'Invoice', contentType: 'application/xml' });
  expect(body.data.destinationParty.identifier).toBe(PARTY);
  expect(result.request.headers['svc-webhook-event-id']).toBe(body.eventId);
  // Test events are not part of the delivery log and are never retried.
  expect(setup.dispatcher.deliveries(PARTY)).toEqual([]);
  expect(setup.clock.pendingTimers()).toBe(0);
});

/** Two endpoints on the recording server: `first` gets the inbound category, `second` the outbound. */
function routeInboundToFirstOutboundToSecond() {
  const first = setup.dispatcher.createEndpoint(PARTY, {
    name: 'first',
    url: setup.endpoint.url,
  }).endpoint;
  const second = setup.dispatcher.createEndpoint(PARTY, {
    name: 'second',
    url: setup.endpoint.url,
  }).endpoint;
  setup.dispatcher.setRules(PARTY, 'inbound', [{ target: first.id }]);
  setup.dispatcher.setRules(PARTY, 'outbound', [{ target: second.id }]);
  return { first, second };
}

it('defaults the category to the first one routed to the endpoint and carries status data for status actions', async () => {
  const { first, second } = routeInboundToFirstOutboundToSecond();
  const result = await setup.dispatcher.sendTestEvent(PARTY, second.id, {
    action: 'lifecycleStatusChanged',
  });
  const body = JSON.parse(result.request.body);
  expect(body.transfer).toBe('outbound');
  expect(body.data).toEqual({ formerValue: 'none', newValue: 'paid' });
  const created = JSON.parse(
    (await setup.dispatcher.sendTestEvent(PARTY, first.id, {})).request.body,
  );
  expect(created).toMatchObject({ action: 'created', transfer: 'inbound' });
});

it('reports a failure without retrying, and rejects actions outside the category', async () => {
  setup.endpoint.answer({ status: 401, body: 'bad signature' });
  const { endpoint: view } = setup.dispatcher.createEndpoint(PARTY, {
    name: 'e',
    url: setup.endpoint.url,
  });
  const result = await setup.dispatcher.sendTestEvent(PARTY, view.id, { category: 'outbound' });
  expect(result).toMatchObject({ statusCode: 401, success: false, bodyStart: 'bad signature' });
  expect(setup.clock.pendingTimers()).toBe(0);
  await expect(
    setup.dispatcher.sendTestEvent(PARTY, view.id, { action: 'invoiceEaten' }),
  ).rejects.toMatchObject({
    name: 'TestEventError',
    field: 'action',
  });
  await expect(setup.dispatcher.sendTestEvent(PARTY, 'nope', {})).rejects.toMatchObject({
    name: 'EndpointNotFoundError',
  });
});

describe('credentials never shown back (issue 17)', () => {
  // An endpoint that echoes its request, as an echo service aimed at by a test event would.
  const echo = (request: { headers: Record<string, unknown> }) => ({
    status: 200,
    body: JSON.stringify(request.headers),
  });

  it.each([
    ['bearer', { type: 'bearer', token: 'bearer-secret-123' }, ['bearer-secret-123']],
    [
      'basic',
      { type: 'basic', username: 'erp', password: 'basic-password-456' },
      [Buffer.from('erp:basic-password-456').toString('base64'), 'basic-password-456'],
    ],
    [
      'custom header',
      { type: 'header', name: 'X-Api-Key', value: 'header-secret-789' },
      ['header-secret-789'],
    ],
  ] as const)(
    '%s: not in the test-event result, not in the delivery log',
    async (_n, credential, secrets) => {
      setup.endpoint.answer(echo);
      const { endpoint: target } = setup.dispatcher.createEndpoint(PARTY, {
        name: 'echo',
        url: setup.endpoint.url,
        credential: { ...credential },
      });

      const result = await setup.dispatcher.sendTestEvent(PARTY, target.id, {});
      // It was sent (the first value is what goes on the wire), and the endpoint echoed it...
      const received = JSON.stringify(setup.endpoint.requests[0]?.headers);
      for (const secret of secrets.slice(0, 1)) expect(received).toContain(secret);
      // ...but the result shows neither the header nor the echo of it.
      const shown = JSON.stringify(result);
      for (const secret of secrets) expect(shown).not.toContain(secret);
      const header = credential.type === 'header' ? 'x-api-key' : 'authorization';
      expect(result.request.headers[header]).toBe('[redacted]');
      expect(result.bodyStart).toBe(BODY_WITHHELD);

      setup.dispatcher.publish(makeEnvelope(), makeRouting());
      await setup.dispatcher.idle();
      const log = JSON.stringify(setup.dispatcher.deliveries(PARTY));
      expect(log).toContain('"statusCode":200');
      expect(log).toContain(JSON.stringify(BODY_WITHHELD));
      for (const secret of secrets) expect(log).not.toContain(secret);
    },
  );
});

describe('preview (SPEC.md 4.3: the exact body is shown before sending)', () => {
  it('sends exactly the previewed body, once, and only to the endpoint it was previewed for', async () => {
    const { first, second } = routeInboundToFirstOutboundToSecond();

    const preview = setup.dispatcher.previewTestEvent(PARTY, second.id, {});
    expect(preview).toMatchObject({ category: 'outbound', action: 'created' });
    expect(preview.actions).toContain('lifecycleStatusChanged');
    expect(JSON.parse(preview.body)).toMatchObject({ eventId: preview.eventId, test: true });
    expect(setup.endpoint.requests).toHaveLength(0);

    await expect(
      setup.dispatcher.sendTestEvent(PARTY, first.id, { eventId: preview.eventId }),
    ).rejects.toMatchObject({ name: 'TestEventError', field: 'eventId' });
    const result = await setup.dispatcher.sendTestEvent(PARTY, second.id, {
      eventId: preview.eventId,
    });
    expect(result.request.body).toBe(preview.body);
    expect(setup.endpoint.requests[0]?.body.toString('utf8')).toBe(preview.body);
    await expect(
      setup.dispatcher.sendTestEvent(PARTY, second.id, { eventId: preview.eventId }),
    ).rejects.toMatchObject({ field: 'eventId' });
  });
});

describe('hints (SPEC.md 7.2)', () => {
  it.each([
    [401, 'signature verification'],
    [403, 'signature verification'],
    [404, 'Wrong URL'],
  ])('explains %i', async (status, hint) => {
    setup.endpoint.answer({ status });
    const { endpoint: view } = setup.dispatcher.createEndpoint(PARTY, {
      name: 'e',
      url: setup.endpoint.url,
    });
    const result = await setup.dispatcher.sendTestEvent(PARTY, view.id, {});
    expect(result.hint).toContain(hint);
  });

  it('gives none for a success or a failure SPEC.md has no advice for', async () => {
    const { endpoint: view } = setup.dispatcher.createEndpoint(PARTY, {
      name: 'e',
      url: setup.endpoint.url,
    });
    expect((await setup.dispatcher.sendTestEvent(PARTY, view.id, {})).hint).toBeUndefined();
    setup.endpoint.answer({ status: 500 });
    expect((await setup.dispatcher.sendTestEvent(PARTY, view.id, {})).hint).toBeUndefined();
  });
});
