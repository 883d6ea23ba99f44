import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { minimalInvoice, SUPPLIER, TOKEN, testProviderForEachTest } from './helpers.ts';

const provider = testProviderForEachTest();

/**
 * One messaging API call over a raw socket: every byte the simulator sent back before the
 * connection closed, so a test sees that not even a status line went out.
 */
async function rawCall(method: string, path: string, body = ''): Promise<string> {
  const { hostname, port } = new URL(provider.url);
  const socket = connect(Number(port), hostname);
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.on('error', () => {});
  socket.end(
    `${method} ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
      `Authorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  await once(socket, 'close');
  return Buffer.concat(received).toString('utf8');
}

/** The sandbox participant's messages with this invoice number, as GET /messages lists them. */
async function listed(invoiceNo: string) {
  const res = await provider.api(`/messages?documentNo=${encodeURIComponent(invoiceNo)}`);
  return ((await res.json()) as { items: { uniqueId: string; transfer: string }[] }).items;
}

async function statuses(path: string, times: number): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < times; i++) result.push((await provider.api(path)).status);
  return result;
}

describe('fault injection', () => {
  it('answers the next N calls with 500, then normally', async () => {
    expect((await provider.admin('/faults', { count: 2, mode: '500' })).status).toBe(201);
    expect(await statuses('/messages', 3)).toEqual([500, 500, 200]);
  });

  it('503 carries Retry-After only when configured', async () => {
    await provider.admin('/faults', { count: 1, mode: '503', retryAfterSeconds: 7 });
    await provider.admin('/faults', { count: 1, mode: '503' });
    const first = await provider.api('/messages');
    const second = await provider.api('/messages');
    expect([first.status, first.headers.get('retry-after')]).toEqual([503, '7']);
    expect([second.status, second.headers.get('retry-after')]).toEqual([503, null]);
    expect(second.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await provider.api('/messages')).status).toBe(200);
  });

  it('429 carries Retry-After seconds and affects only the path prefix', async () => {
    await provider.admin('/faults', {
      count: 1,
      mode: '429',
      retryAfterSeconds: 3,
      pathPrefix: '/messages/',
    });
    expect((await provider.api('/messages')).status).toBe(200);
    const limited = await provider.api('/messages/some-id');
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '3']);
    expect((await provider.api('/messages/some-id')).status).toBe(404);
  });

  it('answers are dated by the simulator clock; undated leaves the Date header out', async () => {
    provider.clock.advance(1500);
    const dated = await provider.api('/messages');
    expect(Date.parse(dated.headers.get('date') ?? '')).toBe(
      Math.floor(provider.clock.now() / 1000) * 1000,
    );
    await provider.admin('/faults', { count: 1, mode: 'undated', pathPrefix: '/messages' });
    const undated = await provider.api('/messages');
    expect([undated.status, undated.headers.get('date')]).toEqual([200, null]);
    expect((await provider.api('/messages')).headers.get('date')).not.toBeNull();
  });

  it('hang never answers until the client gives up, and hangMs delays the answer', async () => {
    await provider.admin('/faults', { count: 1, mode: 'hang' });
    await expect(provider.api('/messages', { signal: AbortSignal.timeout(200) })).rejects.toThrow();
    expect((await provider.api('/messages')).status).toBe(200);

    await provider.admin('/faults', { count: 1, mode: 'hang', hangMs: 150 });
    const started = Date.now();
    expect((await provider.api('/messages')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('a hanging call does not keep the server from closing', async () => {
    await provider.admin('/faults', { count: 1, mode: 'hang' });
    const pending = provider.api('/messages').catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await provider.close();
    expect(await pending).toBeInstanceOf(Error);
  });

  it('DELETE /admin/faults clears what is left; faulted calls are recorded', async () => {
    await provider.admin('/faults', { count: 5, mode: '500' });
    expect((await provider.api('/messages')).status).toBe(500);
    expect((await provider.admin('/faults', undefined, 'DELETE')).status).toBe(204);
    expect((await provider.api('/messages')).status).toBe(200);
    const { items } = (await (await provider.admin('/api-calls', undefined, 'GET')).json()) as {
      items: { status: number }[];
    };
    expect(items.map((c) => c.status)).toEqual([500, 200]);
  });

  it('reset drops the connection without an answer, and the call is not acted upon', async () => {
    await provider.admin('/faults', { count: 1, mode: 'reset' });
    await expect(provider.api('/messages')).rejects.toThrow();
    expect((await provider.api('/messages')).status).toBe(200);
  });

  it('lose-reply acts on the call, then drops the connection before any byte of the answer', async () => {
    const invoice = minimalInvoice(SUPPLIER);
    invoice.invoice.invoiceNo = 'INV-LOST-1';
    await provider.admin('/faults', {
      count: 1,
      mode: 'lose-reply',
      pathPrefix: '/transactions/submit-invoice',
    });
    expect(await rawCall('POST', '/transactions/submit-invoice', JSON.stringify(invoice))).toBe('');

    // The submit was done: the message exists, its created event went out, the log names it.
    const [created, ...others] = await listed('INV-LOST-1');
    expect(others).toEqual([]);
    expect(created?.transfer).toBe('outbound');
    const messageId = created?.uniqueId ?? '';
    expect(provider.eventsOf(messageId).map((e) => `${e.transfer}:${e.action}`)).toEqual([
      'outbound:created',
    ]);
    const calls = (await (
      await provider.admin(`/api-calls?messageId=${messageId}`, undefined, 'GET')
    ).json()) as {
      items: { method: string; path: string; status: number | null }[];
    };
    expect(calls.items).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: '/transactions/submit-invoice',
        status: null,
      }),
    ]);

    // Used up: the next submit is answered.
    invoice.invoice.invoiceNo = 'INV-LOST-2';
    const next = await provider.api('/transactions/submit-invoice', {
      method: 'POST',
      body: JSON.stringify(invoice),
    });
    expect(next.status).toBe(201);
    expect(await listed('INV-LOST-1')).toHaveLength(1);
  });

  it('lose-reply loses every kind of answer: a list, a problem, a streamed document', async () => {
    const messageId = await provider.inbound({ coreDocumentBytes: 5_000_000 });
    await provider.admin('/faults', { count: 3, mode: 'lose-reply' });
    expect(await rawCall('GET', '/messages')).toBe('');
    expect(await rawCall('GET', '/messages/no-such-message')).toBe('');
    expect(await rawCall('GET', `/messages/${messageId}/documents/core`)).toBe('');
    expect(await (await provider.admin('/faults', undefined, 'GET')).json()).toEqual({ items: [] });
    expect(await rawCall('GET', '/messages/no-such-message')).toMatch(/^HTTP\/1\.1 404 /);
  });

  it('lists lose-reply among the faults waiting for calls', async () => {
    const fault = { count: 2, mode: 'lose-reply', pathPrefix: '/messages/' };
    expect((await provider.admin('/faults', fault)).status).toBe(201);
    const res = await provider.admin('/faults', undefined, 'GET');
    expect(await res.json()).toEqual({ items: [fault] });
  });

  it('rate takes that share of matching calls, the same ones for the same seed', async () => {
    const run = async () => {
      await provider.admin('/faults', { count: 1000, mode: '500', rate: 0.3, seed: 42 });
      const seen = await statuses('/messages', 200);
      await provider.admin('/faults', undefined, 'DELETE');
      return seen;
    };
    const first = await run();
    const failed = first.filter((status) => status === 500).length;
    expect(failed).toBeGreaterThan(40);
    expect(failed).toBeLessThan(80);
    expect(await run()).toEqual(first);
  });

  it('rejects a fault with a bad mode, naming the field', async () => {
    const res = await provider.admin('/faults', { count: 1, mode: '418' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ field: 'mode' });
  });
});
