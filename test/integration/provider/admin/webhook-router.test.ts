/** The dispatcher's admin routes over real HTTP, as the provider wiring mounts them at /admin. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../../../src/provider/clock.ts';
import type { Dispatcher } from '../../../../src/provider/webhooks/index.ts';
import { startTestProvider, type TestProvider } from '../helpers.ts';
import { makeEnvelope, makeRouting, PARTY } from '../webhooks/fixtures.ts';
import { type RecordingEndpoint, startRecordingEndpoint } from '../webhooks/recording-endpoint.ts';

const PARTY_PATH = `/admin/participants/${encodeURIComponent(PARTY)}`;

let webhook: RecordingEndpoint;
let provider: TestProvider;
let dispatcher: Dispatcher;
let clock: ManualClock;
let base: string;

beforeEach(async () => {
  webhook = await startRecordingEndpoint({ status: 500 });
  provider = await startTestProvider();
  dispatcher = provider.provider.dispatcher;
  clock = provider.clock;
  base = provider.url;
});

afterEach(async () => {
  await provider.close();
  await webhook.close();
});

async function call(method: string, path: string, body?: unknown, raw?: string) {
  const init: RequestInit = { method };
  if (body !== undefined || raw !== undefined) {
    init.headers = { 'content-type': 'application/json' };
    init.body = raw ?? JSON.stringify(body);
  }
  const response = await fetch(`${base}${path}`, init);
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    body: /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text,
  };
}

async function createEndpoint(extra: object = {}): Promise<{ id: string; secret: string }> {
  const created = await call('POST', `${PARTY_PATH}/endpoints`, {
    name: 'erp',
    url: webhook.url,
    ...extra,
  });
  expect(created.status).toBe(201);
  return created.body;
}

describe('endpoints', () => {
  it('creates, lists without the secret, rotates and deletes', async () => {
    const created = await call('POST', `${PARTY_PATH}/endpoints`, {
      name: 'erp',
      url: webhook.url,
      credential: { type: 'header', name: 'X-Api-Key', value: 'k' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'erp', url: webhook.url, credentialType: 'header' });
    expect(created.body.secret).toMatch(/^whsec_[\w-]{43}$/);

    const listed = await call('GET', `/admin/participants/${PARTY}/endpoints`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      {
        id: created.body.id,
        name: 'erp',
        url: webhook.url,
        credentialType: 'header',
        createdAt: expect.any(String),
      },
    ]);

    const rotated = await call('POST', `${PARTY_PATH}/endpoints/${created.body.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(created.body.secret);

    // The first endpoint is routed to; it can go once routing points elsewhere.
    expect((await call('DELETE', `${PARTY_PATH}/endpoints/${created.body.id}`)).status).toBe(409);
    await call('PUT', `${PARTY_PATH}/routing/inbound`, { rules: [] });
    await call('PUT', `${PARTY_PATH}/routing/outbound`, { rules: [] });
    expect((await call('DELETE', `${PARTY_PATH}/endpoints/${created.body.id}`)).status).toBe(204);
    expect((await call('DELETE', `${PARTY_PATH}/endpoints/${created.body.id}`)).status).toBe(404);
  });

  it.each([
    [{ url: 'http://x' }, 'name'],
    [{ name: 'a', url: 'ftp://example.com' }, 'url'],
    [{ name: 'a', url: 'not a url' }, 'url'],
    [{ name: 'a', url: 'http://x', credential: { type: 'token' } }, 'credential.type'],
    [
      {
        name: 'a',
        url: 'http://x',
        credential: { type: 'header', name: 'Content-Type', value: 'x' },
      },
      'credential.name',
    ],
  ])('answers 400 naming the field for %o', async (body, field) => {
    const answer = await call('POST', `${PARTY_PATH}/endpoints`, body);
    expect(answer.status).toBe(400);
    expect(answer.type).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({
      type: 'about:blank',
      title: expect.any(String),
      status: 400,
    });
    expect(answer.body.violations.join()).toContain(field);
  });

  it('answers 400 for malformed JSON and a malformed party, 409 for a 26th endpoint', async () => {
    const malformed = await call('POST', `${PARTY_PATH}/endpoints`, undefined, '{"name":');
    expect(malformed).toMatchObject({
      status: 400,
      body: { detail: expect.stringContaining('The request body is not valid JSON') },
    });
    expect((await call('GET', '/admin/participants/nocolon/endpoints')).status).toBe(400);
    for (let i = 0; i < 25; i++) await createEndpoint();
    const over = await call('POST', `${PARTY_PATH}/endpoints`, { name: 'x', url: webhook.url });
    expect(over).toMatchObject({ status: 409, body: { title: 'Endpoint limit reached' } });
  });
});

describe('routing', () => {
  it('reads and replaces rules, and lists every violation with 400', async () => {
    const first = await createEndpoint();
    const second = await createEndpoint();
    const initial = await call('GET', `${PARTY_PATH}/routing`);
    expect(initial.body.inbound).toEqual([{ target: first.id, statusEventsForOwnChanges: true }]);

    const rules = [
      { filter: 'Invoice/xml', target: first.id },
      { filter: 'Order/*', target: second.id, statusEventsForOwnChanges: false },
      { filter: 'CreditNote/PDF', target: null },
    ];
    const put = await call('PUT', `${PARTY_PATH}/routing/inbound`, { rules });
    expect(put.status).toBe(200);
    expect(put.body.inbound).toEqual([
      { filter: 'Invoice/XML', target: first.id, statusEventsForOwnChanges: true },
      { filter: 'Order/*', target: second.id, statusEventsForOwnChanges: false },
      { filter: 'CreditNote/PDF', target: null, statusEventsForOwnChanges: true },
    ]);

    const bad = await call('PUT', `${PARTY_PATH}/routing/outbound`, {
      rules: [
        { filter: 'Invoice/DOCX', target: first.id },
        { target: second.id },
        { filter: '*/*', target: 'x' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.title).toBe('Invalid routing rules');
    expect(bad.body.violations).toEqual([
      'rule 1: "Invoice/DOCX" has format "DOCX"; use XML, JSON, PDF, EDI or *',
      'rule 2: a filter is required when a category has more than one rule',
      'rule 3: target x is not an endpoint of this participant',
    ]);
    const overlap = await call('PUT', `${PARTY_PATH}/routing/inbound`, {
      rules: [...rules, { filter: '*/PDF', target: null }],
    });
    expect(overlap.body.violations).toEqual([
      'rules 2 and 4 both cover Order/PDF ("Order/*" and "*/PDF")',
      'rules 3 and 4 both cover CreditNote/PDF ("CreditNote/PDF" and "*/PDF")',
    ]);
    expect((await call('PUT', `${PARTY_PATH}/routing/sideways`, { rules: [] })).status).toBe(400);
    const missing = await call('PUT', `${PARTY_PATH}/routing/inbound`, {
      rules: [{ filter: 'Invoice/XML' }],
    });
    expect(missing.body.violations).toEqual([
      'rules.0.target: Invalid input: expected string, received undefined',
    ]);
  });
});

describe('deliveries', () => {
  it('lists, looks up and redelivers', async () => {
    await createEndpoint();
    const event = makeEnvelope();
    dispatcher.publish(event, makeRouting());
    dispatcher.publish(makeEnvelope(), makeRouting({ category: 'outbound' }));
    await dispatcher.idle();

    const pending = await call(
      'GET',
      `${PARTY_PATH}/deliveries?state=pending&messageId=${event.messageId}`,
    );
    expect(pending.status).toBe(200);
    expect(pending.body).toHaveLength(1);
    expect(pending.body[0]).toMatchObject({
      eventId: event.eventId,
      state: 'pending',
      attempts: [{ statusCode: 500, at: new Date(clock.now()).toISOString() }],
      nextAttemptAt: new Date(clock.now() + 60_000).toISOString(),
    });
    expect((await call('GET', `${PARTY_PATH}/deliveries`)).body).toHaveLength(2);
    expect((await call('GET', `${PARTY_PATH}/deliveries?state=lost`)).status).toBe(400);

    const one = await call('GET', `/admin/deliveries/${event.eventId}`);
    expect(one.body.eventId).toBe(event.eventId);
    expect((await call('GET', '/admin/deliveries/unknown')).status).toBe(404);
    expect((await call('POST', `/admin/deliveries/${event.eventId}/redeliver`)).status).toBe(409);
    expect((await call('POST', '/admin/deliveries/unknown/redeliver')).status).toBe(404);

    for (let i = 0; i < 130; i++) {
      clock.advance(60_000);
      await dispatcher.idle();
    }
    webhook.answer({ status: 204 });
    const redeliver = await call('POST', `/admin/deliveries/${event.eventId}/redeliver`);
    expect(redeliver.status).toBe(202);
    await dispatcher.idle();
    expect((await call('GET', `/admin/deliveries/${event.eventId}`)).body.state).toBe('succeeded');
  });
});

describe('test event', () => {
  it('sends one and returns the result, 400 for a bad action', async () => {
    webhook.answer({ status: 204 });
    const { id } = await createEndpoint();
    const result = await call('POST', `${PARTY_PATH}/endpoints/${id}/test-event`, {
      category: 'outbound',
      action: 'messageStatusChanged',
    });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ statusCode: 204, success: true, bodyStart: '' });
    expect(JSON.parse(result.body.request.body)).toMatchObject({
      test: true,
      transfer: 'outbound',
    });
    expect((await call('POST', `${PARTY_PATH}/endpoints/${id}/test-event`)).status).toBe(200);
    const bad = await call('POST', `${PARTY_PATH}/endpoints/${id}/test-event`, {
      action: 'exploded',
    });
    expect(bad).toMatchObject({
      status: 400,
      body: { violations: [expect.stringContaining('action')] },
    });
    const badCategory = await call('POST', `${PARTY_PATH}/endpoints/${id}/test-event`, {
      category: 'sideways',
    });
    expect(badCategory.status).toBe(400);
    expect((await call('POST', `${PARTY_PATH}/endpoints/nope/test-event`, {})).status).toBe(404);
  });
});

it('answers a path no admin router knows with a 404 problem', async () => {
  const unknown = await call('GET', '/admin/scenarios');
  expect(unknown).toMatchObject({ status: 404, type: expect.stringMatching(/problem\+json/) });
  // One body parser in front of every admin route: a malformed body is a 400 problem anywhere.
  const malformed = await call('POST', '/admin/scenarios', undefined, 'not json');
  expect(malformed).toMatchObject({ status: 400, type: expect.stringMatching(/problem\+json/) });
});

describe('what the console shows', () => {
  it('previews a test event and sends exactly that one', async () => {
    webhook.answer({ status: 204 });
    const { id } = await createEndpoint();
    const preview = await call('POST', `${PARTY_PATH}/endpoints/${id}/test-event/preview`, {
      action: 'deliveryNotified',
    });
    expect(preview).toMatchObject({
      status: 200,
      body: { category: 'inbound', action: 'deliveryNotified', eventId: expect.any(String) },
    });
    const sent = await call('POST', `${PARTY_PATH}/endpoints/${id}/test-event`, {
      eventId: preview.body.eventId,
    });
    expect(sent.body.request.body).toBe(preview.body.body);
    const again = await call('POST', `${PARTY_PATH}/endpoints/${id}/test-event`, {
      eventId: preview.body.eventId,
    });
    expect(again).toMatchObject({ status: 400, body: { field: 'eventId' } });
  });

  it('tells how long a rotated-out secret stays valid', async () => {
    const { id } = await createEndpoint();
    const rotated = await call('POST', `${PARTY_PATH}/endpoints/${id}/rotate-secret`);
    const expires = new Date(clock.now() + 24 * 60 * 60 * 1000).toISOString();
    expect(rotated.body.previousSecretExpiresAt).toBe(expires);
    const listed = await call('GET', `${PARTY_PATH}/endpoints`);
    expect(listed.body[0].previousSecretExpiresAt).toBe(expires);
    clock.advance(24 * 60 * 60 * 1000);
    expect((await call('GET', `${PARTY_PATH}/endpoints`)).body[0]).not.toHaveProperty(
      'previousSecretExpiresAt',
    );
  });

  it('shows one event with the exact body and each attempt’s headers, credential redacted', async () => {
    await createEndpoint({ credential: { type: 'bearer', token: 'erp-token-never-shown' } });
    const event = makeEnvelope();
    dispatcher.publish(event, makeRouting());
    await dispatcher.idle();
    const one = await call('GET', `/admin/deliveries/${event.eventId}`);
    expect(one.body.body).toBe(JSON.stringify(event));
    expect(one.body.attempts[0].headers).toMatchObject({
      authorization: '[redacted]',
      'svc-webhook-event-id': event.eventId,
      'svc-webhook-signature': expect.stringMatching(/^t=\d+,v0=[0-9a-f]{64}$/),
    });
    const list = await call('GET', `${PARTY_PATH}/deliveries`);
    expect(list.body[0]).not.toHaveProperty('body');
    expect(JSON.stringify(list.body)).not.toContain('erp-token-never-shown');
  });
});
