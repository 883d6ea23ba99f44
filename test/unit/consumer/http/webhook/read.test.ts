import { once } from 'node:events';
import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdmission } from '../../../../../src/consumer/http/admission.ts';
import { ABORTED, readWithinLimits } from '../../../../../src/consumer/http/webhook/read.ts';
import { Rejection } from '../../../../../src/consumer/http/webhook/rejection.ts';

type Read = Awaited<ReturnType<typeof readWithinLimits>>;
const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A real server whose handler reads each request's body with the step under test. */
async function serve(maxBodyBytes: number, inflightBytes: number) {
  const admission = createAdmission({ maxConnections: 10, maxInflightBytes: inflightBytes });
  const reads: Promise<Read>[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const budget = admission.admit(0);
    if (budget === undefined) throw new Error('no budget');
    const read = readWithinLimits(req, maxBodyBytes, budget);
    reads.push(read);
    void read.then(() => res.end());
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  /** Sends `chunks` chunked (no Content-Length); `abort` cuts the connection after them. */
  const send = async (chunks: string[], abort = false): Promise<Read> => {
    const req = request({ port, host: '127.0.0.1', method: 'POST' });
    req.on('error', () => {});
    for (const chunk of chunks) req.write(chunk);
    if (abort) {
      await expect.poll(() => reads.length).toBe(1);
      req.destroy();
    } else req.end();
    await expect.poll(() => reads.length).toBe(1);
    return (reads.pop() as Promise<Read>).finally(() => {});
  };
  return { send, admission };
}

describe('the bounded read', () => {
  it('returns the whole body and keeps its bytes counted until released', async () => {
    const { send } = await serve(100, 100);
    expect(((await send(['{"a":', '1}'])) as Buffer).toString()).toBe('{"a":1}');
  });

  it('returns a body that came in pieces in memory of its own, exactly its size', async () => {
    // Handed on to the store's writer thread, a buffer is copied with all the memory behind
    // it: a body taken from Node's shared pool (Buffer.concat's, under 4 KiB) copies 8 KiB.
    const { send } = await serve(10_000, 10_000);
    const pieces = ['{"eventId":"e-1",', '"padding":"', 'x'.repeat(2_000), '"}'];
    const body = (await send(pieces)) as Buffer;
    expect(body.toString()).toBe(pieces.join(''));
    expect([body.byteOffset, body.buffer.byteLength]).toEqual([0, body.length]);
  });

  it('stops at the first byte over WEBHOOK_MAX_BODY_BYTES (413) and frees what it held', async () => {
    const { send, admission } = await serve(10, 100);
    const result = await send(['12345678', '90abc']);
    expect(result).toBeInstanceOf(Rejection);
    expect((result as Rejection).problem.status).toBe(413);
    expect(admission.stats().inflightBytes).toBe(0);
  });

  it('stops when the bytes no longer fit the in-flight budget (503)', async () => {
    const { send } = await serve(100, 5);
    const result = await send(['123', '456']);
    expect((result as Rejection).outcome).toBe('over_capacity');
    expect((result as Rejection).headers).toEqual({ 'Retry-After': '1' });
  });

  it('reports a client that left mid-body as aborted: nobody is left to answer', async () => {
    const { send } = await serve(100, 100);
    expect(await send(['{"half":'], true)).toBe(ABORTED);
  });
});
