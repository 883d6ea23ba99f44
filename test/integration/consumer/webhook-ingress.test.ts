import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import express from 'express';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  countEvents,
  startTestConsumer,
  TEST_SECRET,
  type TestConsumer,
} from '../../support/consumer.ts';
import { buildEnvelope, forgedSignature, signedRequest } from '../../support/webhooks.ts';

let consumer: TestConsumer;

async function post(body: string | Buffer, headers: Record<string, string>) {
  const res = await request(consumer.webhookUrl, { method: 'POST', body, headers });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

async function send(
  payload: unknown,
  options: { timestamp?: number; headers?: Record<string, string>; secrets?: string[] } = {},
) {
  const req = signedRequest(payload, { secrets: options.secrets ?? [TEST_SECRET], ...options });
  return post(req.body, req.headers);
}

function storedRow(eventId: string) {
  return consumer.store.db.prepare('SELECT * FROM events WHERE event_id = ?').get(eventId) as
    | Record<string, unknown>
    | undefined;
}

function webhookLogs() {
  return consumer.logs.filter((l) => l.msg === 'webhook');
}

describe('webhook ingress', () => {
  beforeEach(async () => {
    consumer = await startTestConsumer();
  });
  afterEach(async () => {
    await consumer.stop();
  });

  it('stores a signed event with its raw body and envelope fields, then answers 204', async () => {
    const envelope = buildEnvelope({ action: 'deliveryNotified' });
    const req = signedRequest(envelope, { secrets: [TEST_SECRET] });
    // Whitespace the sender chose must survive: the stored body is the signed bytes.
    const body = req.body.replace('{', '{ ');
    const resigned = signedRequest(body, { secrets: [TEST_SECRET] });

    const res = await post(resigned.body, resigned.headers);

    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const row = storedRow(envelope.eventId);
    expect(row).toMatchObject({
      action: 'deliveryNotified',
      transfer: 'inbound',
      message_id: envelope.messageId,
      party: envelope.party,
      occurred_at: envelope.occurredAt,
      test: 0,
      flag: null,
      state: 'pending',
      attempts: 0,
    });
    expect(String(row?.body)).toBe(body);
    expect(webhookLogs().at(-1)).toMatchObject({
      eventId: envelope.eventId,
      action: 'deliveryNotified',
      transfer: 'inbound',
      outcome: 'stored',
      status: 204,
    });
    expect(typeof webhookLogs().at(-1)?.durationMs).toBe('number');
  });

  it('answers 204 to a duplicate eventId and keeps the first row unchanged', async () => {
    const envelope = buildEnvelope();
    expect((await send(envelope)).status).toBe(204);
    const first = storedRow(envelope.eventId);
    expect((await send({ ...envelope, data: { changed: true } })).status).toBe(204);
    expect(storedRow(envelope.eventId)).toEqual(first);
    expect(countEvents(consumer.store)).toBe(1);
    expect(webhookLogs().at(-1)?.outcome).toBe('duplicate');
  });

  it('stores the same event posted three times at once exactly once', async () => {
    const envelope = buildEnvelope();
    const results = await Promise.all([send(envelope), send(envelope), send(envelope)]);
    expect(results.map((r) => r.status)).toEqual([204, 204, 204]);
    expect(countEvents(consumer.store)).toBe(1);
    expect(
      webhookLogs()
        .map((l) => l.outcome)
        .sort(),
    ).toEqual(['duplicate', 'duplicate', 'stored']);
  });

  it('stores test events and unknown actions, flagged for the worker to skip', async () => {
    const testEvent = buildEnvelope({ test: true });
    const unknown = buildEnvelope({ action: 'documentAdded' });
    expect((await send(testEvent)).status).toBe(204);
    expect((await send(unknown)).status).toBe(204);
    expect(storedRow(testEvent.eventId)).toMatchObject({ test: 1, flag: 'test', state: 'pending' });
    expect(storedRow(unknown.eventId)).toMatchObject({ flag: 'unknown_action', state: 'pending' });
  });

  it('accepts the request signed with the old and the new secret during a rotation', async () => {
    await consumer.stop();
    consumer = await startTestConsumer({ WEBHOOK_SECRETS: 'whsec_new, whsec_old' });
    const a = buildEnvelope();
    const b = buildEnvelope();
    expect((await send(a, { secrets: ['whsec_old'] })).status).toBe(204);
    expect((await send(b, { secrets: ['whsec_new', 'whsec_old'] })).status).toBe(204);
    expect(countEvents(consumer.store)).toBe(2);
  });

  describe('401 and nothing stored', () => {
    const cases: [
      string,
      (e: ReturnType<typeof buildEnvelope>) => Promise<{ status: number; text: string }>,
      string,
    ][] = [
      [
        'missing signature',
        (e) => post(JSON.stringify(e), { 'content-type': 'application/json' }),
        'missing_header',
      ],
      [
        'malformed signature',
        (e) => post(JSON.stringify(e), { 'svc-webhook-signature': 'v0=abc' }),
        'malformed_header',
      ],
      ['wrong secret', (e) => send(e, { secrets: ['whsec_someone_else'] }), 'signature_mismatch'],
      [
        'stale timestamp',
        (e) => send(e, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
        'timestamp_too_old',
      ],
      [
        'future timestamp',
        // Time passing brings a future timestamp closer: +301 s (floored) was inside the
        // 300 s tolerance once the request took more than the second's remainder (a loaded
        // CI). A minute past the tolerance stays outside it for any request of under a minute.
        (e) => send(e, { timestamp: Math.floor(Date.now() / 1000) + 360 }),
        'timestamp_in_future',
      ],
      [
        'body changed after signing',
        (e) => {
          const req = signedRequest(e, { secrets: [TEST_SECRET] });
          return post(req.body.replace(e.messageId, 'another-message'), req.headers);
        },
        'signature_mismatch',
      ],
    ];
    it.each(cases)('%s', async (_name, sendIt, reason) => {
      const envelope = buildEnvelope();
      const res = await sendIt(envelope);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text)).toMatchObject({
        status: 401,
        type: `urn:webhook-consumer:signature:${reason}`,
      });
      expect(countEvents(consumer.store)).toBe(0);
      expect(webhookLogs().at(-1)).toMatchObject({
        outcome: 'unauthorized',
        status: 401,
        verified: false,
      });
    });
  });

  describe('credential (WEBHOOK_CREDENTIAL)', () => {
    const cases: [string, string, Record<string, string>, Record<string, string>][] = [
      [
        'bearer',
        'bearer:tok-123',
        { authorization: 'Bearer tok-123' },
        { authorization: 'Bearer tok-124' },
      ],
      [
        'basic',
        'basic:erp:pa:ss',
        { authorization: `Basic ${Buffer.from('erp:pa:ss').toString('base64')}` },
        { authorization: `Basic ${Buffer.from('erp:pass').toString('base64')}` },
      ],
      [
        'custom header',
        'header:X-Gateway-Key:k-9',
        { 'x-gateway-key': 'k-9' },
        { 'x-other': 'k-9' },
      ],
    ];
    it.each(cases)(
      '%s: accepted when right, 401 when wrong or missing',
      async (_n, setting, right, wrong) => {
        await consumer.stop();
        consumer = await startTestConsumer({ WEBHOOK_CREDENTIAL: setting });
        const ok = buildEnvelope();
        expect((await send(ok, { headers: right })).status).toBe(204);
        const bad = await send(buildEnvelope(), { headers: wrong });
        expect(bad.status).toBe(401);
        expect(JSON.parse(bad.text).title).toBe('Invalid credential');
        expect((await send(buildEnvelope())).status).toBe(401);
        expect(countEvents(consumer.store)).toBe(1);
      },
    );

    it('checks the signature before the credential', async () => {
      await consumer.stop();
      consumer = await startTestConsumer({ WEBHOOK_CREDENTIAL: 'bearer:tok' });
      const res = await send(buildEnvelope(), {
        secrets: ['wrong'],
        headers: { authorization: 'Bearer tok' },
      });
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text).title).toBe('Invalid signature');
    });
  });

  describe('400 and nothing stored', () => {
    it('body is not JSON', async () => {
      const res = await send('{"eventId": "e1",');
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text).title).toBe('Body is not JSON');
      expect(countEvents(consumer.store)).toBe(0);
    });

    it('empty body', async () => {
      const res = await send('');
      expect(res.status).toBe(400);
      expect(countEvents(consumer.store)).toBe(0);
    });

    it.each(['eventId', 'action', 'transfer', 'occurredAt', 'messageId', 'party'])(
      'envelope field %s missing',
      async (field) => {
        const envelope: Record<string, unknown> = { ...buildEnvelope() };
        delete envelope[field];
        const res = await send(envelope);
        expect(res.status).toBe(400);
        const problem = JSON.parse(res.text);
        expect(problem.detail).toContain(field);
        expect(countEvents(consumer.store)).toBe(0);
        expect(webhookLogs().at(-1)).toMatchObject({ outcome: 'bad_request', status: 400 });
      },
    );

    it.each([
      ['eventId', 12],
      ['transfer', 'both'],
      ['occurredAt', 'not a date'],
      ['party', null],
    ])('envelope field %s of the wrong type', async (field, value) => {
      const res = await send({ ...buildEnvelope(), [field]: value });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text).detail).toContain(field);
      expect(countEvents(consumer.store)).toBe(0);
    });

    it('a JSON array instead of an object', async () => {
      const res = await send([buildEnvelope()]);
      expect(res.status).toBe(400);
      expect(countEvents(consumer.store)).toBe(0);
    });
  });

  it('trusts the verified body over the SVC-Webhook-* routing headers', async () => {
    const envelope = buildEnvelope({ action: 'created', transfer: 'outbound' });
    const res = await send(envelope, {
      headers: { 'svc-webhook-action': 'deliveryNotified', 'svc-webhook-transfer': 'inbound' },
    });
    expect(res.status).toBe(204);
    expect(storedRow(envelope.eventId)).toMatchObject({ action: 'created', transfer: 'outbound' });
  });

  it('answers 405 with Allow: POST to other methods', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'] as const) {
      const res = await request(consumer.webhookUrl, { method });
      const text = await res.body.text();
      expect(res.statusCode, method).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      // HEAD: the problem's length, without the problem.
      expect(text.length === 0).toBe(method === 'HEAD');
      expect(Number(res.headers['content-length'])).toBeGreaterThan(0);
    }
  });
});

describe('the webhook path', () => {
  afterEach(async () => {
    await consumer.stop();
  });

  /**
   * A signed event posted to `path` as written (node:http sends it unchanged, where a URL would
   * percent-encode `{`): its status, whether it is stored, and the answer's body.
   */
  async function post(path: string) {
    const envelope = buildEnvelope();
    const req = signedRequest(envelope, { secrets: [TEST_SECRET] });
    const { port } = new URL(consumer.url);
    const outgoing = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      headers: req.headers,
    });
    outgoing.end(req.body);
    const [res] = (await once(outgoing, 'response')) as [IncomingMessage];
    let text = '';
    res.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    await once(res, 'end');
    return { status: res.statusCode, stored: storedRow(envelope.eventId) !== undefined, text };
  }

  /** `post`'s status and whether the event is stored. */
  async function sendTo(path: string) {
    const { status, stored } = await post(path);
    return { status, stored };
  }

  it('takes every spelling express routed to it, and no other path', async () => {
    consumer = await startTestConsumer();
    // The configured path is answered without express (app.ts); the other spellings still
    // go through its router, to the same handler.
    for (const path of ['/webhooks', '/webhooks?from=gateway', '/Webhooks', '/webhooks/']) {
      expect(await sendTo(path), path).toEqual({ status: 204, stored: true });
    }
    for (const path of ['/webhooks/extra', '/webhook', '/webhooksx']) {
      expect(await sendTo(path), path).toEqual({ status: 404, stored: false });
    }
  });

  it('answers the path as configured without express, the other spellings through it', async () => {
    // express() copies its application's methods into each app it makes: spied before the
    // consumer makes its own, express's request handling is seen on every request it takes.
    const application = express.application as unknown as { handle: () => void };
    const handle = vi.spyOn(application, 'handle');
    try {
      consumer = await startTestConsumer();
      expect(await sendTo('/webhooks?from=gateway')).toEqual({ status: 204, stored: true });
      expect(handle).not.toHaveBeenCalled();
      expect(await sendTo('/Webhooks')).toEqual({ status: 204, stored: true });
      expect(handle).toHaveBeenCalledTimes(1);
    } finally {
      handle.mockRestore();
    }
  });

  it('answers a bug past every step with a 500 problem and one log line, on either way in', async () => {
    consumer = await startTestConsumer();
    vi.spyOn(consumer.metrics, 'webhookReceived').mockImplementation(() => {
      throw new TypeError('a bug in the answer');
    });
    for (const path of ['/webhooks', '/Webhooks']) {
      // Stored before the answer failed: the service's retry is then a duplicate.
      const { text, ...answer } = await post(path);
      expect(answer, path).toEqual({ status: 500, stored: true });
      expect(JSON.parse(text)).toMatchObject({ status: 500, title: 'Internal Server Error' });
      expect(consumer.logs.at(-1), path).toMatchObject({ msg: 'unhandled error', path });
    }
  });

  it('reads a WEBHOOK_PATH in express path syntax as express does', async () => {
    consumer = await startTestConsumer({ WEBHOOK_PATH: '/hooks{/:tenant}' });
    expect(await sendTo('/hooks')).toEqual({ status: 204, stored: true });
    expect(await sendTo('/hooks/acme')).toEqual({ status: 204, stored: true });
    // The setting's text is a pattern, not a path: taken literally, it would be stored.
    expect(await sendTo('/hooks{/:tenant}')).toEqual({ status: 404, stored: false });
  });
});

describe('body size limit', () => {
  beforeEach(async () => {
    consumer = await startTestConsumer({ WEBHOOK_MAX_BODY_BYTES: '2048' });
  });
  afterEach(async () => {
    await consumer.stop();
  });

  it('answers 413 to a signed body over WEBHOOK_MAX_BODY_BYTES and stores nothing', async () => {
    const envelope = buildEnvelope({ data: { padding: 'x'.repeat(4096) } });
    const res = await send(envelope);
    expect(res.status).toBe(413);
    expect(countEvents(consumer.store)).toBe(0);
    expect(webhookLogs().at(-1)).toMatchObject({ outcome: 'too_large', status: 413 });
  });

  it('enforces the limit while reading a body sent without Content-Length', async () => {
    const chunks = async function* () {
      for (let i = 0; i < 8; i++) yield Buffer.alloc(1024, 'a');
    };
    // A well-formed, fresh signature header: without one the body is never read (401).
    const res = await request(consumer.webhookUrl, {
      method: 'POST',
      headers: { 'svc-webhook-signature': forgedSignature() },
      body: Readable.from(chunks()),
    });
    await res.body.text();
    expect(res.statusCode).toBe(413);
    expect(countEvents(consumer.store)).toBe(0);
  });

  it('accepts a body just under the limit', async () => {
    const envelope = buildEnvelope({ data: { padding: 'x'.repeat(1500) } });
    expect((await send(envelope)).status).toBe(204);
  });
});

describe('a store that fails on write', () => {
  beforeEach(async () => {
    consumer = await startTestConsumer();
  });
  afterEach(async () => {
    await consumer.stop();
  });

  it('answers 503, never 2xx, and leaves no row behind', async () => {
    // A real SQLite failure on insert, as a full disk or a broken file would cause.
    consumer.store.db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON events
      BEGIN SELECT RAISE(ABORT, 'simulated write failure'); END`);
    const envelope = buildEnvelope();
    const res = await send(envelope);
    expect(res.status).toBe(503);
    expect(countEvents(consumer.store)).toBe(0);
    expect(webhookLogs().at(-1)).toMatchObject({ outcome: 'store_unavailable', status: 503 });

    // Once the store recovers, the service's retry of the same event is stored.
    consumer.store.db.exec('DROP TRIGGER refuse');
    expect((await send(envelope)).status).toBe(204);
    expect(countEvents(consumer.store)).toBe(1);
  });

  it('fails only the event that cannot be written when others share its commit', async () => {
    consumer.store.db.exec(`CREATE TRIGGER refuse_one BEFORE INSERT ON events
      WHEN NEW.message_id = 'poison' BEGIN SELECT RAISE(ABORT, 'bad row'); END`);
    const good = Array.from({ length: 10 }, () => buildEnvelope());
    const bad = buildEnvelope({ messageId: 'poison' });
    const results = await Promise.all([...good, bad].map((e) => send(e)));
    expect(results.slice(0, 10).every((r) => r.status === 204)).toBe(true);
    expect(results[10]?.status).toBe(503);
    expect(countEvents(consumer.store)).toBe(10);
  });
});
