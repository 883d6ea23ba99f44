/**
 * The consumer's ingress as an attacker meets it (issue 17): a real consumer process. Nothing
 * is read before the signature header passes, nothing compressed is accepted, the limits
 * answer 503, unsigned headers are never echoed, and the operations routes can live on a port
 * of their own.
 */
import { gzipSync } from 'node:zlib';
import { Client, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildEnvelope, forgedSignature, signedRequest } from '../support/webhooks.ts';
import {
  type ConsumerProcess,
  consumerUnderAttackEnv,
  metric,
  startConsumerProcess,
  waitUntil,
} from './support/consumer-process.ts';
import { sendHead } from './support/raw-http.ts';

const SECRET = 'whsec_security_ingress_0123456789';
const ADMIN_TOKEN = 'security-ingress-admin-token-0123456789';

const running: ConsumerProcess[] = [];
const sockets: { destroy(): void }[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(running.splice(0).map((consumer) => consumer.stop()));
});

async function start(env: Record<string, string> = {}): Promise<ConsumerProcess> {
  const consumer = await startConsumerProcess({
    ...consumerUnderAttackEnv(SECRET),
    ADMIN_TOKEN,
    ...env,
  });
  running.push(consumer);
  return consumer;
}

async function post(url: string, body: string | Buffer, headers: Record<string, string>) {
  const res = await request(url, { method: 'POST', body, headers });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

async function postSigned(consumer: ConsumerProcess, payload: unknown = buildEnvelope()) {
  const signed = signedRequest(payload, { secrets: [SECRET] });
  return post(`${consumer.url}/webhooks`, signed.body, signed.headers);
}

async function adminEvents(baseUrl: string) {
  const res = await request(`${baseUrl}/admin/events`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return ((await res.body.json()) as { items: unknown[] }).items;
}

/** A request head announcing a 10 MB body of which not one byte is sent. */
function headOnly(consumer: ConsumerProcess, headers: Record<string, string>) {
  const sent = sendHead(consumer.url, {
    method: 'POST',
    path: '/webhooks',
    headers: { 'content-type': 'application/json', 'content-length': '10000000', ...headers },
  });
  sockets.push(sent.socket);
  return sent.response;
}

describe('answered before the body is read', () => {
  it('401 without a well-formed, fresh signature header', async () => {
    const consumer = await start();
    const stale = `t=${Math.floor(Date.now() / 1000) - 3600},v0=${'0'.repeat(64)}`;
    for (const [header, reason] of [
      [undefined, 'missing_header'],
      ['t=1,v0=not-hex', 'malformed_header'],
      [stale, 'timestamp_too_old'],
    ] as const) {
      const res = await headOnly(
        consumer,
        header === undefined ? {} : { 'svc-webhook-signature': header },
      );
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body).type).toBe(`urn:webhook-consumer:signature:${reason}`);
    }
  });

  it('415 with a problem body for a compressed body, whatever it would inflate to', async () => {
    const consumer = await start();
    const res = await headOnly(consumer, {
      'svc-webhook-signature': forgedSignature(),
      'content-encoding': 'gzip',
    });
    expect(res.status).toBe(415);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.headers['accept-encoding']).toBe('identity');
    expect(JSON.parse(res.body)).toMatchObject({ status: 415 });

    // A correctly signed gzip body is refused too: nothing is ever inflated.
    const body = gzipSync(JSON.stringify(buildEnvelope()));
    const signed = signedRequest(body.toString('latin1'), { secrets: [SECRET] });
    const gz = await post(`${consumer.url}/webhooks`, body, {
      ...signed.headers,
      'content-encoding': 'gzip',
    });
    expect(gz.status).toBe(415);
    expect(await adminEvents(consumer.url)).toEqual([]);
  });

  it('413 for a declared length over WEBHOOK_MAX_BODY_BYTES (default 1 MiB)', async () => {
    const consumer = await start();
    const res = await headOnly(consumer, { 'svc-webhook-signature': forgedSignature() });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).detail).toContain('1048576');
  });
});

describe('limits answered 503 with Retry-After', () => {
  it('WEBHOOK_MAX_INFLIGHT_BYTES: a body that does not fit the budget is not read', async () => {
    const consumer = await start({
      WEBHOOK_MAX_BODY_BYTES: '1024',
      WEBHOOK_MAX_INFLIGHT_BYTES: '1024',
    });
    // A body announcing the whole budget and sending ten bytes holds ten bytes (issue 11: a
    // body dribbled a byte at a time must not crowd the service out).
    const slow = sendHead(consumer.url, {
      method: 'POST',
      path: '/webhooks',
      headers: { 'svc-webhook-signature': forgedSignature(), 'content-length': '1024' },
      body: '{"partial"',
    });
    sockets.push(slow.socket);
    await waitUntil(
      async () => (await metric(consumer.url, 'webhook_body_bytes_reserved')) === 10,
      'the slow body to hold what it sent',
    );
    expect((await postSigned(consumer)).status).toBe(204);

    // A request that holds nearly all of it: it announces 1010 bytes and sends 1000.
    const holder = sendHead(consumer.url, {
      method: 'POST',
      path: '/webhooks',
      headers: { 'svc-webhook-signature': forgedSignature(), 'content-length': '1010' },
      body: `{"partial":"${'p'.repeat(988)}`,
    });
    sockets.push(holder.socket);
    await waitUntil(
      async () => (await metric(consumer.url, 'webhook_body_bytes_reserved')) === 1010,
      'the holder to hold its bytes',
    );

    const refused = await postSigned(consumer);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.text).detail).toContain('WEBHOOK_MAX_INFLIGHT_BYTES');

    holder.socket.destroy();
    slow.socket.destroy();
    await waitUntil(
      async () => (await metric(consumer.url, 'webhook_body_bytes_reserved')) === 0,
      'the budget to be given back',
    );
    expect((await postSigned(consumer)).status).toBe(204);
  });

  it('WEBHOOK_MAX_CONNECTIONS: idle connections make room; a request on one busy connection too many is refused', async () => {
    const consumer = await start({ WEBHOOK_MAX_CONNECTIONS: '2' });
    // Two idle keep-alive connections (each answered once, then left open): closed, oldest
    // first, to make room for a new connection (issue 11).
    const idle = [new Client(consumer.url), new Client(consumer.url)];
    for (const client of idle) {
      sockets.push({ destroy: () => void client.destroy() });
      const res = await client.request({ method: 'GET', path: '/healthz' });
      await res.body.dump();
    }
    expect((await postSigned(consumer)).status).toBe(204);

    // Two connections with a request in progress (bodies still arriving) are not idle. Each
    // asks for 100 Continue, which says its head is in: no scrape that would count as a third.
    for (let i = 0; i < 2; i++) {
      const busy = sendHead(consumer.url, {
        method: 'POST',
        path: '/webhooks',
        headers: {
          'svc-webhook-signature': forgedSignature(),
          'content-length': '100',
          expect: '100-continue',
        },
      });
      sockets.push(busy.socket);
      expect((await busy.response).status).toBe(100);
    }

    const signed = signedRequest(buildEnvelope(), { secrets: [SECRET] });
    const res = await request(`${consumer.url}/webhooks`, {
      method: 'POST',
      headers: signed.headers,
      body: signed.body,
      reset: true,
    });
    const problem = JSON.parse(await res.body.text());
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.headers.connection).toBe('close');
    expect(problem.detail).toContain('WEBHOOK_MAX_CONNECTIONS');

    for (const socket of sockets.splice(0)) socket.destroy();
    await waitUntil(
      async () => (await metric(consumer.url, 'webhook_connections_open')) <= 1,
      'the busy connections to close',
    );
    expect((await postSigned(consumer)).status).toBe(204);
  });
});

describe('what a 401 and the log give back', () => {
  it('no unsigned routing header and no raw signature entry in the answer; cut short in the log', async () => {
    const consumer = await start();
    // About 12 KB of headers: under Node's 16 KiB header limit, so the route sees them.
    const junk = 'J'.repeat(3000);
    const res = await post(`${consumer.url}/webhooks`, '{}', {
      'svc-webhook-signature': `t=${junk},v0=${junk}`,
      'svc-webhook-event-id': `evt-${junk}`,
      'svc-webhook-action': `act-${junk}`,
      'svc-webhook-transfer': `tr-${junk}`,
    });
    expect(res.status).toBe(401);
    expect(res.text).not.toContain('JJJ');
    expect(res.text.length).toBeLessThan(500);

    await waitUntil(() => consumer.output().includes('"outcome":"unauthorized"'), 'the log line');
    const line = consumer
      .output()
      .split('\n')
      .find((l) => l.includes('"outcome":"unauthorized"')) as string;
    const logged = JSON.parse(line);
    for (const field of ['eventId', 'action', 'transfer']) {
      expect(logged[field].length).toBeLessThanOrEqual(101);
    }
    expect(line.length).toBeLessThan(1000);
  });
});

describe('bad percent-escapes', () => {
  it('answer 400 with a problem body, never 500', async () => {
    const consumer = await start();
    for (const path of ['/admin/messages/%zz', '/admin/events/%E0%A4%A/replay']) {
      const res = await request(`${consumer.url}${path}`, {
        method: path.endsWith('replay') ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(JSON.parse(await res.body.text()).detail).toContain('percent-escape');
    }
    expect(consumer.output()).not.toContain('unhandled error');
  });
});

describe('OPERATIONS_PORT', () => {
  it('serves health, metrics and admin apart from the webhook port', async () => {
    const consumer = await start({ OPERATIONS_PORT: '0' });
    const ops = String(consumer.listening.operationsUrl);
    expect(ops).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ops).not.toBe(consumer.url);
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const status = async (url: string, method: 'GET' | 'POST' = 'GET') => {
      const res = await request(url, { method, headers: auth });
      await res.body.dump();
      return res.statusCode;
    };

    expect((await postSigned(consumer)).status).toBe(204);
    for (const path of ['/healthz', '/readyz', '/metrics', '/admin/events']) {
      expect(await status(`${consumer.url}${path}`)).toBe(404);
      expect(await status(`${ops}${path}`)).toBe(200);
    }
    expect(await status(`${ops}/webhooks`, 'POST')).toBe(404);
    expect(await adminEvents(ops)).toHaveLength(1);
  });
});
