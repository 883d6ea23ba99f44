/**
 * The messaging API client against a real HTTP server on a free port: a stand-in for the
 * messaging API (test/support/messaging-api-stand-in.ts) whose answers each test scripts to
 * exercise one rule of the client (auth, retries, timeouts, paging, routes).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ApiClient,
  type ApiClientOptions,
  ApiDeadlineError,
  createApiClient,
} from '../../../src/consumer/api/index.ts';
import { freePort } from '../../support/free-port.ts';
import {
  drip,
  exampleDescriptor,
  hang,
  json,
  type Responder,
  rejection,
  type StandIn,
  startMessagingApiStandIn,
  status,
} from '../../support/messaging-api-stand-in.ts';

const TOKEN = 'test-token-1234';

let standIn: StandIn | undefined;
let spoolDir: string | undefined;
const clients: ApiClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  if (spoolDir !== undefined) rmSync(spoolDir, { recursive: true, force: true });
  spoolDir = undefined;
  await standIn?.close();
  standIn = undefined;
});

/** A client of `baseUrl` whose waits are recorded instead of slept. */
function clientOf(baseUrl: string, options: Partial<ApiClientOptions> = {}) {
  const delays: number[] = [];
  spoolDir = mkdtempSync(join(tmpdir(), 'api-spool-'));
  const client = createApiClient({
    baseUrl,
    token: TOKEN,
    spoolDir,
    random: () => 0.5,
    sleep: async (ms) => {
      delays.push(ms);
    },
    ...options,
  });
  clients.push(client);
  return { client, delays };
}

/** A client of a new stand-in. */
async function setup(options: Partial<ApiClientOptions> = {}) {
  standIn = await startMessagingApiStandIn();
  return { server: standIn, ...clientOf(standIn.baseUrl, options) };
}

/** A base URL where nothing listens: the connection is refused. */
async function refusedBaseUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

describe('messaging API client', () => {
  it('sends the bearer token and fetches a message descriptor', async () => {
    const { server, client } = await setup();
    server.script(json(200, { ...exampleDescriptor('m-1'), futureField: 'kept' }));

    const message = await client.getMessage('m-1', { transfer: 'inbound' });

    expect(message.descriptor.uniqueId).toBe('m-1');
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(server.requests[0]?.url).toBe('/messages/m-1?transfer=inbound');
  });

  it('keeps a path prefix of the base URL', async () => {
    standIn = await startMessagingApiStandIn();
    const { client } = clientOf(`${standIn.baseUrl}/api/`);
    standIn.script(json(200, { status: 'delivered' }));

    expect(await client.getMessageStatus('m-1')).toEqual({ status: 'delivered' });
    expect(standIn.requests[0]?.url).toBe('/api/messages/m-1/status');
  });

  it('retries 500 three times, then succeeds on the fourth request', async () => {
    const { server, client, delays } = await setup();
    server.script(status(500), status(500), status(500), json(200, { status: 'delivered' }));

    expect(await client.getMessageStatus('m-1')).toEqual({ status: 'delivered' });
    expect(server.requests).toHaveLength(4);
    // Full jitter at random() = 0.5: half of 250, 500, 1000.
    expect(delays).toEqual([125, 250, 500]);
  });

  it('waits as long as Retry-After asks on a 429', async () => {
    const { server, client, delays } = await setup();
    server.script(status(429, { 'retry-after': '1' }), json(200, { status: 'delivered' }));

    await client.getMessageStatus('m-1');

    expect(delays).toEqual([1_000]);
    expect(server.requests).toHaveLength(2);
  });

  it('caps a long Retry-After at retryMaxDelayMs', async () => {
    const { server, client, delays } = await setup({ retryMaxDelayMs: 2_000 });
    server.script(status(503, { 'retry-after': '3600' }), json(200, { status: 'delivered' }));

    await client.getMessageStatus('m-1');

    expect(delays).toEqual([2_000]);
  });

  it('does not retry a 400 and reports the problem detail', async () => {
    const { server, client } = await setup();
    server.script((res) => {
      res.writeHead(400, { 'content-type': 'application/problem+json' });
      res.end(
        JSON.stringify({
          type: 'about:blank',
          title: 'Bad Request',
          status: 400,
          detail: 'bad id',
        }),
      );
    });

    const error = await rejection(client.getMessage('m-1'));

    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({ status: 400, retryable: false, method: 'GET' });
    expect(error.path).toBe('/messages/m-1');
    expect(error.problem?.detail).toBe('bad id');
    expect(error.message).toContain('bad id');
  });

  it('reports 404 as final', async () => {
    const { server, client } = await setup();
    server.script(json(404, { title: 'Not Found' }));

    const error = await rejection(client.getCoreDocument('missing'));

    expect(error).toMatchObject({ status: 404, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('times out a hanging server, retries, and then succeeds', async () => {
    const { server, client, delays } = await setup({ timeoutMs: 200 });
    server.script(hang, json(200, { status: 'delivered' }));

    const started = Date.now();
    expect(await client.getMessageStatus('m-1')).toEqual({ status: 'delivered' });

    expect(server.requests).toHaveLength(2);
    expect(delays).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('times out a body that stops halfway', async () => {
    const { server, client } = await setup({ timeoutMs: 200, maxRetries: 0 });
    server.script((res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.write('<Invoice>');
    });

    const error = await rejection(client.getCoreDocument('m-1'));

    expect(error).toMatchObject({ status: undefined, retryable: true });
    expect(error.message).toMatch(/within 200 ms/);
  });

  it('gives up on a refused connection after maxRetries + 1 attempts, as retryable', async () => {
    const { client, delays } = clientOf(await refusedBaseUrl(), { maxRetries: 3 });

    const error = await rejection(client.getMessage('m-1'));

    expect(delays).toHaveLength(3);
    expect(error).toMatchObject({ status: undefined, retryable: true, path: '/messages/m-1' });
    expect(error.body).toMatch(/ECONNREFUSED/);
    expect(error.message).toMatch(/after 4 attempts/);
  });

  it('says retryable after retries of a 503 run out', async () => {
    const { server, client } = await setup({ maxRetries: 2 });
    server.script(status(503));

    const error = await rejection(client.markAsDelivered('m-1'));

    expect(server.requests).toHaveLength(3);
    expect(error).toMatchObject({ status: 503, retryable: true, method: 'POST' });
  });

  it('logs each retry at warn without the token', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const { server, client } = await setup({ logger });
    server.script(status(502), json(200, { status: 'delivered' }));

    await client.getMessageStatus('m-1');

    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(entry).toMatchObject({
      level: 40,
      method: 'GET',
      path: '/messages/m-1/status',
      status: 502,
      attempt: 1,
      delayMs: 125,
    });
    expect(lines.join('')).not.toContain(TOKEN);
  });

  it('follows nextCursor across three pages', async () => {
    const { server, client } = await setup();
    server.script(
      json(200, { items: [exampleDescriptor('a'), exampleDescriptor('b')], nextCursor: 'c2' }),
      json(200, { items: [exampleDescriptor('c')], nextCursor: 'c3' }),
      json(200, { items: [exampleDescriptor('d')], nextCursor: null }),
    );

    const ids: string[] = [];
    for await (const message of client.listAllMessages({
      status: 'pendingdelivery',
      transfer: 'inbound',
      limit: 2,
    })) {
      ids.push(message.uniqueId);
    }

    expect(ids).toEqual(['a', 'b', 'c', 'd']);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/messages?status=pendingdelivery&transfer=inbound&limit=2',
      '/messages?status=pendingdelivery&transfer=inbound&limit=2&cursor=c2',
      '/messages?status=pendingdelivery&transfer=inbound&limit=2&cursor=c3',
    ]);
  });

  it('stops paging when the service repeats a cursor', async () => {
    const { server, client } = await setup();
    server.script(json(200, { items: [exampleDescriptor('a')], nextCursor: 'same' }));

    const seen: string[] = [];
    const error = await rejection(
      (async () => {
        for await (const message of client.listAllMessages({})) seen.push(message.uniqueId);
      })(),
    );

    expect(error.message).toMatch(/repeated the cursor/);
    expect(seen).toEqual(['a', 'a']);
  });

  it('rejects an answer of the wrong shape with a clear message', async () => {
    const { server, client } = await setup();
    server.script(json(200, { ...exampleDescriptor('m-1'), transfer: 'sideways' }));

    const error = await rejection(client.getMessage('m-1'));

    expect(error).toMatchObject({ status: 200, retryable: false });
    expect(error.message).toMatch(/not a message descriptor: transfer/);
  });

  it('rejects an answer that is not JSON', async () => {
    const { server, client } = await setup();
    server.script((res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'));

    const error = await rejection(client.listMessages({}));

    expect(error.message).toMatch(/not JSON/);
  });

  it('fetches the core document and a transaction as bytes on their routes', async () => {
    const { server, client } = await setup();
    const xml = Buffer.from('<?xml version="1.0"?><Invoice>é</Invoice>');
    server.script(
      (res) => res.writeHead(200, { 'content-type': 'application/xml' }).end(xml),
      json(200, { invoice: { invoiceNo: '1' } }),
      json(200, { creditNote: {} }),
    );

    const core = await client.getCoreDocument('m 1?#');
    const submit = await client.getTransaction('SubmitInvoice', 'm-1');
    await client.getTransaction('CorrectWithCredit', 'm-2');

    expect(core).toMatchObject({
      contentType: 'application/xml',
      size: xml.length,
      sha256: createHash('sha256').update(xml).digest('hex'),
    });
    // Small documents are kept in memory: no spool file.
    expect(core.bytes).toEqual(xml);
    expect(JSON.parse((submit.bytes as Buffer).toString('utf8'))).toEqual({
      invoice: { invoiceNo: '1' },
    });
    expect(readdirSync(spoolDir as string)).toEqual([]);
    expect(server.requests.map((r) => r.url)).toEqual([
      // An id with reserved characters stays one path segment (ids with `/` are refused).
      '/messages/m%201%3F%23/documents/core',
      '/transactions/submit-invoice?messageId=m-1',
      '/transactions/correct-with-credit?messageId=m-2',
    ]);
  });

  it('keeps a document up to memoryDocumentBytes in memory and spools a larger one whole', async () => {
    const { server, client } = await setup({ memoryDocumentBytes: 1000 });
    const small = Buffer.alloc(1000, 's');
    const chunked = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
    const announced = Buffer.alloc(1001, 'a');
    server.script(
      (res) => res.writeHead(200, { 'content-type': 'application/xml' }).end(small),
      (res) => {
        // No length given: it passes the bound while it arrives, in pieces.
        res.writeHead(200, { 'content-type': 'application/pdf' });
        for (let i = 0; i < chunked.length; i += 700) res.write(chunked.subarray(i, i + 700));
        res.end();
      },
      (res) =>
        res
          .writeHead(200, { 'content-type': 'application/xml', 'content-length': announced.length })
          .end(announced),
    );

    const kept = await client.getCoreDocument('m-1');
    const spooled = await client.getCoreDocument('m-2');
    const straight = await client.getCoreDocument('m-3');

    expect(kept.bytes).toEqual(small);
    expect(spooled.bytes).toBeUndefined();
    expect(spooled).toMatchObject({
      size: chunked.length,
      sha256: createHash('sha256').update(chunked).digest('hex'),
    });
    expect(await readFile(spooled.file())).toEqual(chunked);
    expect(straight.bytes).toBeUndefined();
    expect(await readFile(straight.file())).toEqual(announced);
    expect(readdirSync(spoolDir as string)).toHaveLength(2);
    await Promise.all([kept, spooled, straight].map((document) => document.discard()));
    expect(readdirSync(spoolDir as string)).toEqual([]);
  });

  it('writes a document kept in memory to a spool file only when asked for one', async () => {
    const { server, client } = await setup();
    const xml = Buffer.from('<Invoice/>');
    server.script((res) => res.writeHead(200, { 'content-type': 'application/xml' }).end(xml));

    const document = await client.getCoreDocument('m-1');
    expect(readdirSync(spoolDir as string)).toEqual([]);

    const file = document.file();
    expect(document.file()).toBe(file);
    expect(await readFile(file)).toEqual(xml);
    await document.discard();
    expect(readdirSync(spoolDir as string)).toEqual([]);
    expect(() => document.file()).toThrow(/discarded/);
  });

  it('spools a document the memory budget cannot hold, and takes memory again once one is discarded', async () => {
    const { server, client } = await setup({ memoryDocumentBytes: 1000, memoryBudgetBytes: 1500 });
    const body = Buffer.alloc(800, 'x');
    const answer: Responder = (res) =>
      res.writeHead(200, { 'content-type': 'application/xml' }).end(body);
    server.script(answer, answer, answer);

    const first = await client.getCoreDocument('m-1');
    const second = await client.getCoreDocument('m-2');
    expect(first.bytes).toEqual(body);
    // 1,600 bytes would pass the budget of 1,500: to a file, whole.
    expect(second.bytes).toBeUndefined();
    expect(await readFile(second.file())).toEqual(body);

    await first.discard();
    const third = await client.getCoreDocument('m-3');
    expect(third.bytes).toEqual(body);
    await Promise.all([second.discard(), third.discard()]);
  });

  it('refuses a document whose Content-Length is over the limit, reading none of it', async () => {
    const { server, client } = await setup({ maxDocumentBytes: 1000 });
    let written = 0;
    server.script((res) => {
      res.writeHead(200, { 'content-type': 'application/xml', 'content-length': 1_000_000 });
      // Offered slowly: the client must not wait for it, let alone keep it.
      const timer = setInterval(() => {
        written += 10_000;
        if (written > 1_000_000 || !res.write(Buffer.alloc(10_000))) clearInterval(timer);
      }, 20);
      res.on('close', () => clearInterval(timer));
    });

    const error = await rejection(client.getCoreDocument('m-1'));

    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      /larger than API_MAX_DOCUMENT_BYTES \(1000 bytes\): 1000000 bytes/,
    );
    expect(server.requests).toHaveLength(1);
    expect(readdirSync(spoolDir as string)).toEqual([]);
  });

  it('cuts off a streamed document as soon as it passes the limit, and leaves no file', async () => {
    const { server, client } = await setup({ maxDocumentBytes: 50_000 });
    server.script((res) => {
      res.writeHead(200, { 'content-type': 'application/xml' }); // chunked: no length given
      for (let i = 0; i < 100; i++) res.write(Buffer.alloc(1000, 'x'));
      res.end();
    });

    const error = await rejection(client.getCoreDocument('m-1'));

    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/larger than API_MAX_DOCUMENT_BYTES \(50000 bytes\)/);
    expect(readdirSync(spoolDir as string)).toEqual([]);
  });

  it('keeps only the start of an error body, whatever its size', async () => {
    const { server, client } = await setup({ maxRetries: 0 });
    server.script((res) => {
      res.writeHead(400, { 'content-type': 'text/html' });
      res.end(Buffer.alloc(5_000_000, 'e'));
    });

    const error = await rejection(client.getMessage('m-1'));

    expect(error.status).toBe(400);
    expect(error.body.length).toBeLessThanOrEqual(2000);
  });

  it('marks as delivered and as failed with a JSON reason', async () => {
    const { server, client } = await setup();
    server.script(status(204));

    await client.markAsDelivered('m-1');
    await client.markAsFailed('m-2', 'invoice number already booked');

    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /messages/m-1/mark-as-delivered',
      'POST /messages/m-2/mark-as-failed',
    ]);
    expect(server.requests[1]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(server.requests[1]?.body ?? '')).toEqual({
      reason: 'invoice number already booked',
    });
  });

  it('submits an invoice with more=true', async () => {
    const { server, client } = await setup();
    server.script(json(201, { messageId: 'new-1', status: 'notset' }));

    const result = await client.submitInvoice({ invoice: { invoiceNo: '7' } }, { more: true });

    expect(result).toEqual({ messageId: 'new-1', status: 'notset' });
    expect(server.requests[0]?.url).toBe('/transactions/submit-invoice?more=true');
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({ invoice: { invoiceNo: '7' } });
  });

  it('sends more=false by default', async () => {
    const { server, client } = await setup();
    server.script(json(201, { messageId: 'new-1', status: 'received' }));

    await client.submitInvoice({});

    expect(server.requests[0]?.url).toBe('/transactions/submit-invoice?more=false');
  });

  it('does not retry a submit that got a 500, since the invoice may exist', async () => {
    const { server, client } = await setup();
    server.script(status(500), json(201, { messageId: 'dup', status: 'received' }));

    const error = await rejection(client.submitInvoice({ invoice: {} }));

    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({ status: 500, retryable: false });
    expect(error.message).toMatch(/check before sending again/);
  });

  it('does not retry a submit that timed out', async () => {
    const { server, client } = await setup({ timeoutMs: 200 });
    server.script(hang, json(201, { messageId: 'dup', status: 'received' }));

    const error = await rejection(client.submitInvoice({ invoice: {} }));

    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({ status: undefined, retryable: false });
  });

  it('retries a submit that was refused a connection, since nothing was sent', async () => {
    const { client, delays } = clientOf(await refusedBaseUrl(), { maxRetries: 2 });

    const error = await rejection(client.submitInvoice({}));

    expect(delays).toHaveLength(2);
    expect(error).toMatchObject({ retryable: true });
  });
});

describe('deadlines of a slow API (issue 26)', () => {
  it('gives up an answer dripped within the per-wait timeout at the call deadline, and does not retry it', async () => {
    // A rate of 1 byte/s: only the deadline can end this answer (10 bytes/s).
    const { server, client } = await setup({
      timeoutMs: 300,
      deadlineMs: 800,
      minBytesPerSecond: 1,
    });
    server.script(drip(JSON.stringify({ status: 'delivered', padding: 'x'.repeat(100) }), 100));

    const started = performance.now();
    const error = await rejection(client.getMessageStatus('m-1'));
    const elapsed = performance.now() - started;

    expect(error).toBeInstanceOf(ApiDeadlineError);
    expect(error).toMatchObject({ limit: 'deadline', limitValue: 800, retryable: true });
    expect(error.message).toMatch(/deadline of 800 ms \(API_DEADLINE_MS\)/);
    expect(elapsed).toBeGreaterThanOrEqual(750);
    expect(elapsed).toBeLessThan(800 + 700);
    // The worker's backoff asks again, not the client at once.
    expect(server.requests).toHaveLength(1);
  });

  it('gives up a document slower than the minimum rate after one window, leaving no file', async () => {
    const { server, client } = await setup({
      timeoutMs: 300,
      deadlineMs: 60_000,
      minBytesPerSecond: 1000,
    });
    server.script(drip(Buffer.alloc(1000, 'x'), 50)); // 20 bytes/s

    const started = performance.now();
    const error = await rejection(client.getCoreDocument('m-1'));

    expect(error).toMatchObject({ limit: 'min_rate', limitValue: 1000, retryable: true });
    expect(error.message).toMatch(/under the minimum of 1000 \(API_MIN_BYTES_PER_SECOND\)/);
    // At the first byte after one window (300 ms), with room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(300 + 700);
    expect(server.requests).toHaveLength(1);
    expect(readdirSync(spoolDir as string)).toEqual([]);
  });

  it('lets a document that keeps the minimum rate run past the base deadline', async () => {
    // 100 bytes every 50 ms (2,000 bytes/s) for 1,500 bytes: about 750 ms, past deadlineMs; a
    // document's deadline adds maxDocumentBytes at the minimum rate (here 2 s).
    const { server, client } = await setup({
      timeoutMs: 300,
      deadlineMs: 400,
      minBytesPerSecond: 1000,
      maxDocumentBytes: 2000,
    });
    server.script(drip(Buffer.alloc(1500, 'd'), 50, 100));

    const started = performance.now();
    const document = await client.getCoreDocument('m-1');

    expect(document.size).toBe(1500);
    expect(performance.now() - started).toBeGreaterThan(400);
  });

  it('tolerates a slow start within the first window', async () => {
    const { server, client } = await setup({ timeoutMs: 300, minBytesPerSecond: 1000 });
    server.script((res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.write('<');
      // The rest, 2,000 bytes, 200 ms later: 2,001 bytes in the first window.
      setTimeout(() => res.end(Buffer.alloc(2000, 'x')), 200);
    });

    expect((await client.getCoreDocument('m-1')).size).toBe(2001);
  });

  it('keeps "maybe sent" for submit-invoice: a deadline passed is not retryable, and not retried', async () => {
    const { server, client } = await setup({
      timeoutMs: 300,
      deadlineMs: 500,
      minBytesPerSecond: 1,
    });
    server.script(
      drip(JSON.stringify({ messageId: 'dup', status: 'received', pad: 'x'.repeat(50) }), 100),
    );

    const error = await rejection(client.submitInvoice({ invoice: {} }));

    expect(error).toBeInstanceOf(ApiDeadlineError);
    expect(error).toMatchObject({ limit: 'deadline', retryable: false });
    expect(error.message).toMatch(/check before sending again/);
    expect(server.requests).toHaveLength(1);
  });

  it('stops retrying within the call when the next wait would pass the deadline', async () => {
    const { server, client, delays } = await setup({
      deadlineMs: 1000,
      retryBaseDelayMs: 5000,
      retryMaxDelayMs: 5000,
    });
    server.script(status(503));

    const error = await rejection(client.getMessageStatus('m-1'));

    // random 0.5: the first wait would be 2,500 ms, past the deadline: the worker retries later.
    expect(error).toMatchObject({ status: 503, retryable: true });
    expect(server.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });
});
