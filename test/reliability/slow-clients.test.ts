/**
 * Slow and abusive clients against a consumer process with its default limits: hundreds of
 * connections that never send a byte, keep-alive connections left idle, request heads sent a
 * byte at a time (slowloris), and bodies announced at the 1 MiB limit (behind a fresh, forged
 * signature header, which anyone can write) and sent a byte at a time. Together they are more
 * connections than WEBHOOK_MAX_CONNECTIONS and more announced bytes than
 * WEBHOOK_MAX_INFLIGHT_BYTES. Meanwhile the service's webhooks keep coming: every one is
 * answered 204 within its 5 s, and stored; health answers too.
 */
import type { Socket } from 'node:net';
import { connect } from 'node:net';
import { Client, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsumerProcess,
  metric,
  startConsumerProcess,
  waitUntil,
} from '../security/support/consumer-process.ts';
import { buildEnvelope, forgedSignature, signedRequest } from '../support/webhooks.ts';
import { dribble } from './support/raw-http.ts';

const SECRET = 'whsec_reliability_slow_clients_01';
const IDLE = 300;
const KEEP_ALIVE = 30;
const SLOW_HEADS = 50;
const SLOW_BODIES = 30;

let consumer: ConsumerProcess;
const sockets: Socket[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  consumer = await startConsumerProcess({
    WEBHOOK_SECRETS: SECRET,
    API_BASE_URL: 'http://127.0.0.1:9',
    API_TOKEN: 'reliability-slow-clients-token',
    ROLE: 'ingress',
  });
});
afterAll(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(clients.splice(0).map((client) => client.destroy()));
  await consumer?.stop();
});

describe('slow and abusive clients', () => {
  it('do not keep the service waiting: every webhook answered 204 within 5 s', async () => {
    const port = Number(new URL(consumer.url).port);
    // Connections that never send a byte.
    for (let i = 0; i < IDLE; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      sockets.push(socket);
    }
    // Keep-alive connections, answered once and left open.
    for (let i = 0; i < KEEP_ALIVE; i++) {
      const client = new Client(consumer.url, { keepAliveTimeout: 600_000 });
      clients.push(client);
      const res = await client.request({ method: 'GET', path: '/healthz' });
      await res.body.dump();
    }
    // Request heads a byte every 200 ms: 10 s would pass before one is complete.
    const head = Buffer.from(
      `POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nSVC-Webhook-Signature: ${forgedSignature()}\r\nContent-Length: 2\r\n\r\n{}`,
    );
    for (let i = 0; i < SLOW_HEADS; i++) sockets.push(dribble(port, head, 200));
    // Bodies announced at the limit, behind a fresh forged signature, sent a byte every 200 ms.
    for (let i = 0; i < SLOW_BODIES; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(
        `POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nSVC-Webhook-Signature: ${forgedSignature()}\r\nContent-Length: 1048576\r\n\r\n{`,
      );
      const timer = setInterval(() => socket.write(' '), 200);
      socket.on('close', () => clearInterval(timer));
      sockets.push(socket);
    }
    // More than the limit are open; once they have had their second to send a request head,
    // each new connection (a scrape here) makes room by closing the longest idle ones.
    await waitUntil(
      async () => (await metric(consumer.url, 'webhook_connections_open')) > 256,
      'the abusive connections to be open',
    );
    await waitUntil(
      async () => (await metric(consumer.url, 'webhook_connections_open')) <= 256,
      'idle connections to make room',
    );

    // The service, for three seconds: a webhook every 100 ms, each on a connection of its own.
    const answers: { status: number; ms: number; eventId: string }[] = [];
    const until = Date.now() + 3000;
    const pending: Promise<void>[] = [];
    while (Date.now() < until) {
      pending.push(
        (async () => {
          const envelope = buildEnvelope();
          const signed = signedRequest(envelope, { secrets: [SECRET] });
          const started = performance.now();
          const res = await request(`${consumer.url}/webhooks`, {
            method: 'POST',
            headers: signed.headers,
            body: signed.body,
            reset: true,
            headersTimeout: 5000,
          });
          await res.body.text();
          answers.push({
            status: res.statusCode,
            ms: Math.round(performance.now() - started),
            eventId: envelope.eventId,
          });
        })(),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await Promise.all(pending);
    const health = await request(`${consumer.url}/healthz`, { reset: true });
    await health.body.text();
    expect(health.statusCode).toBe(200);

    const late = answers.filter((a) => a.status !== 204 || a.ms > 5000);
    expect(late, JSON.stringify(late.slice(0, 5))).toEqual([]);
    expect(answers.length).toBeGreaterThan(20);
    console.log(
      `slow clients: ${IDLE} idle, ${KEEP_ALIVE} keep-alive, ${SLOW_HEADS} slow heads, ` +
        `${SLOW_BODIES} slow 1 MiB bodies; ${answers.length} webhooks all 204, slowest ` +
        `${Math.max(...answers.map((a) => a.ms))} ms`,
    );
  }, 60_000);
});
