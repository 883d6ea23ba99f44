/**
 * JSON bounded in shape before it is parsed (issue 26, point 1). A size limit did not bound
 * what parsing costs: a signed 1 MiB body of nested arrays or of 70,000 keys held the event
 * loop for a second, and a hostile API's 15 MiB nested descriptor cost 1.3 GiB and ended in a
 * RangeError the worker retried forever. Here, on the real consumer process and real servers:
 * such bodies are answered 400, and such answers fail the event once, for good, while
 * legitimate webhooks go on being answered 204.
 */
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, createApiClient } from '../../src/consumer/api/index.ts';
import { closeServer, listenOnLoopback } from '../support/loopback-server.ts';
import { testFolder } from '../support/test-folder.ts';
import { buildEnvelope, postSigned, signedRequest } from '../support/webhooks.ts';
import {
  type ConsumerProcess,
  consumerUnderAttackEnv,
  startConsumerProcess,
  waitUntil,
} from './support/consumer-process.ts';

const SECRET = 'whsec_security_json_shape_0123456789';
const ADMIN_TOKEN = 'security-json-shape-admin-token-0123456';

/** `{"data": [[[...]]]}`-style bodies: `depth` levels of arrays, nothing else. */
const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

let consumer: ConsumerProcess | undefined;
let api: Server | undefined;
afterEach(async () => {
  await consumer?.stop();
  consumer = undefined;
  await closeServer(api);
  api = undefined;
});

/** Posts a raw signed body; status and problem. */
async function postRaw(url: string, body: string) {
  const envelope = buildEnvelope();
  const signed = signedRequest(body, { secrets: [SECRET] });
  const res = await request(url, {
    method: 'POST',
    headers: { ...signed.headers, 'svc-webhook-event-id': envelope.eventId },
    body: signed.body,
  });
  const text = await res.body.text();
  return { status: res.statusCode, problem: text === '' ? undefined : JSON.parse(text) };
}

describe('signed webhook bodies', () => {
  it('a deeply nested body and a 70,000-key body are answered 400, naming the limit, and logged', async () => {
    consumer = await startConsumerProcess({
      ...consumerUnderAttackEnv(SECRET),
      ADMIN_TOKEN,
    });
    const url = `${consumer.url}/webhooks`;
    const envelope = JSON.stringify(buildEnvelope());
    // An envelope whose data is 400,000 levels of arrays: under the 1 MiB body limit.
    const deep = `${envelope.slice(0, -1)},"extra":${nestedArrays(400_000)}}`;
    const wide = JSON.stringify({
      ...buildEnvelope(),
      data: Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [`k${i}`, 0])),
    });
    expect(Buffer.byteLength(deep)).toBeLessThan(1024 * 1024);
    expect(Buffer.byteLength(wide)).toBeLessThan(1024 * 1024);

    const nested = await postRaw(url, deep);
    expect(nested.status).toBe(400);
    expect(nested.problem).toMatchObject({
      type: 'urn:webhook-consumer:json-shape:depth',
      detail: expect.stringMatching(/deeper than allowed \(32\)/),
    });
    const keys = await postRaw(url, wide);
    expect(keys.status).toBe(400);
    expect(keys.problem).toMatchObject({
      type: 'urn:webhook-consumer:json-shape:keys',
      detail: expect.stringMatching(/more members than allowed \(1000\)/),
    });
    expect(await postSigned(url, buildEnvelope(), { secret: SECRET })).toBe(204);

    const refusals = () =>
      (consumer?.output() ?? '')
        .split('\n')
        .filter((line) => line.includes('"msg":"webhook"') && line.includes('"status":400'));
    await waitUntil(() => refusals().length === 2, 'both refusals to be logged');
    const lines = refusals();
    expect(lines.map((line) => JSON.parse(line).reason)).toEqual([
      expect.stringMatching(/deeper than allowed/),
      expect.stringMatching(/more members than allowed/),
    ]);
    const events = await request(`${consumer.url}/admin/events`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    // Only the legitimate event was stored.
    expect(((await events.body.json()) as { items: unknown[] }).items).toHaveLength(1);
  });
});

describe('answers of a hostile messaging API', () => {
  it('a deeply nested descriptor fails the event once, for good, while webhooks keep getting 204', async () => {
    const calls: string[] = [];
    api = createServer((req, res) => {
      calls.push(`${req.method} ${req.url}`);
      // A descriptor whose `documents` is 500,000 levels of arrays: about 1 MiB, under any
      // size limit the consumer had before.
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(`{"messageId":"m","documents":${nestedArrays(500_000)}}`);
    });
    const apiUrl = await listenOnLoopback(api);
    consumer = await startConsumerProcess({
      ...consumerUnderAttackEnv(SECRET, apiUrl),
      ADMIN_TOKEN,
    });
    const url = `${consumer.url}/webhooks`;
    // No descriptor in `data`: the worker asks the API for it.
    const event = buildEnvelope({ action: 'deliveryNotified', data: null });
    expect(await postSigned(url, event, { secret: SECRET })).toBe(204);

    const statuses: number[] = [];
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    let stored: { state: string; attempts: number; lastError: string } | undefined;
    await waitUntil(async () => {
      statuses.push(await postSigned(url, buildEnvelope(), { secret: SECRET }));
      const res = await request(`${consumer?.url}/admin/events`, { headers: admin });
      const { items } = (await res.body.json()) as { items: { eventId: string }[] };
      stored = items.find((item) => item.eventId === event.eventId) as typeof stored;
      return stored?.state === 'dead';
    }, 'the event to be dead-lettered');
    expect(stored).toMatchObject({
      attempts: 1,
      lastError: expect.stringMatching(/over its shape limits .*deeper than allowed/),
    });
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 204)).toBe(true);
    // Dead-lettered, not reported to the service: the message is not the fault.
    expect(calls.filter((call) => call.startsWith('POST'))).toEqual([]);
    expect(
      calls.filter((call) => call.startsWith(`GET /messages/${event.messageId}`)),
    ).toHaveLength(1);
  });

  describe('each kind of answer, through the API client', () => {
    const hostile = (body: string, status = 200) =>
      createServer((_req, res) => {
        res.writeHead(status, { 'content-type': 'application/problem+json' }).end(body);
      });
    const failure = (call: Promise<unknown>) =>
      call.then(
        () => undefined,
        (error: unknown) => error,
      );

    it('descriptors, lists and transaction JSON over the limits are non-retryable ApiErrors', async () => {
      api = hostile(nestedArrays(100_000));
      const spoolDir = join(testFolder('json-shape-'), 'spool');
      const client = createApiClient({
        baseUrl: await listenOnLoopback(api),
        token: 'api-token',
        maxRetries: 0,
        spoolDir,
      });
      try {
        for (const call of [
          client.getMessage('m1'),
          client.listMessages({}),
          client.getTransaction('SubmitInvoice', 'm1'),
        ]) {
          const error = await failure(call);
          expect(error).toBeInstanceOf(ApiError);
          expect(error).toMatchObject({ retryable: false, status: 200 });
          expect((error as ApiError).message).toMatch(/over its shape limits/);
        }
        // The refused transaction left no file behind (a small one never had one: the spool
        // folder is made only for a document that goes to a file).
        expect(existsSync(spoolDir) ? readdirSync(spoolDir) : []).toEqual([]);
      } finally {
        await client.close();
      }
    });

    it('a problem body over the limits is not parsed, and its start is kept as text', async () => {
      api = hostile(`{"title":${nestedArrays(30_000)}}`, 422);
      const client = createApiClient({ baseUrl: await listenOnLoopback(api), token: 'api-token' });
      try {
        const error = await failure(client.getMessage('m1'));
        expect(error).toMatchObject({ status: 422, problem: undefined, retryable: false });
        expect((error as ApiError).body).toMatch(/^\{"title":\[\[\[/);
      } finally {
        await client.close();
      }
    });

    it('descriptor answers are capped at 1 MiB', async () => {
      const padded = (bytes: number) => `{"pad":"${'x'.repeat(bytes)}"}`;
      api = hostile(padded(1024 * 1024));
      const client = createApiClient({ baseUrl: await listenOnLoopback(api), token: 'api-token' });
      try {
        const error = await failure(client.getMessage('m1'));
        expect(error).toMatchObject({ retryable: false });
        expect((error as ApiError).message).toMatch(/larger than .*\(1048576 bytes\)/);
      } finally {
        await client.close();
      }
    });
  });
});
