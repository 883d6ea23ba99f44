/**
 * Memory exhaustion before authentication (issue 17, high): floods against a real consumer
 * process, its memory read from /proc/<pid>/status of the node process that holds the port.
 *
 * Before the fix, 100 gzip requests (2.4 MiB on the wire, all answered 401) took the consumer
 * from about 120 MiB to 2.9 GiB; 100 plain 24 MiB bodies to 1.0-1.4 GiB. The bounds below are
 * generous (run-to-run and machine noise must never fail them) and still far below those.
 * Measured figures: SECURITY.md.
 */
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildEnvelope, postSigned } from '../support/webhooks.ts';
import {
  type ConsumerProcess,
  consumerUnderAttackEnv,
  startConsumerProcess,
} from './support/consumer-process.ts';
import { FLOODS, type FloodOutcome, MiB, measurePeak, readMemory } from './support/floods.ts';

const SECRET = 'whsec_security_floods_0123456789';
/** The target is 50 MiB over idle; the bound leaves room for noise. */
const BOUND = 80 * MiB;

let consumer: ConsumerProcess;
let idle: number;

/** A legitimate webhook, as the service sends it: its status code. */
const sendSigned = () =>
  postSigned(`${consumer.url}/webhooks`, buildEnvelope(), { secret: SECRET });

beforeEach(async () => {
  consumer = await startConsumerProcess(consumerUnderAttackEnv(SECRET));
  // Warm up the paths the floods take (accepted, refused), so idle is a running consumer's.
  expect(await sendSigned()).toBe(204);
  const unsigned = await request(`${consumer.url}/webhooks`, { method: 'POST', body: '{}' });
  await unsigned.body.dump();
  idle = readMemory(consumer.pid).rss;
});

afterEach(async () => {
  await consumer.stop();
});

function total(outcome: FloodOutcome): number {
  return [...Object.values(outcome.statuses), ...Object.values(outcome.errors)].reduce(
    (sum, n) => sum + n,
    0,
  );
}

describe('floods against the consumer process', () => {
  it('100 unsigned gzip bodies (25 MiB each inflated): all 401 unread, RSS < idle + 80 MiB', async () => {
    const { result, peak } = await measurePeak(consumer.pid, () =>
      FLOODS.unsignedGzip.send(`${consumer.url}/webhooks`),
    );
    expect(result).toEqual({ statuses: { 401: 100 }, errors: {} });
    expect(peak - idle).toBeLessThan(BOUND);
    expect(await sendSigned()).toBe(204);
  }, 60_000);

  it('100 gzip bodies with a forged fresh signature header: all 415 unread, RSS < idle + 80 MiB', async () => {
    const { result, peak } = await measurePeak(consumer.pid, () =>
      FLOODS.forgedGzip.send(`${consumer.url}/webhooks`),
    );
    expect(result).toEqual({ statuses: { 415: 100 }, errors: {} });
    expect(peak - idle).toBeLessThan(BOUND);
    expect(await sendSigned()).toBe(204);
  }, 60_000);

  it('100 plain 24 MiB bodies with Content-Length: refused unread (413), RSS < idle + 80 MiB', async () => {
    const { result, peak } = await measurePeak(consumer.pid, () =>
      FLOODS.declaredBodies.send(`${consumer.url}/webhooks`),
    );
    // The answer comes before the body; a client still sending may see the close instead.
    expect(Object.keys(result.statuses)).toEqual(['413']);
    expect(total(result)).toBe(100);
    expect(peak - idle).toBeLessThan(BOUND);
    expect(await sendSigned()).toBe(204);
  }, 60_000);

  it('100 plain 24 MiB chunked bodies: cut off at the limit on the wire, RSS < idle + 128 MiB', async () => {
    const { result, peak } = await measurePeak(consumer.pid, () =>
      FLOODS.chunkedBodies.send(`${consumer.url}/webhooks`),
    );
    // Without a length each body is read up to WEBHOOK_MAX_BODY_BYTES (1 MiB) before the 413;
    // those over the in-flight budget get 503 unread.
    for (const status of Object.keys(result.statuses)) expect(['413', '503']).toContain(status);
    expect(total(result)).toBe(100);
    // About 100 MiB does cross the wire here, and V8 frees socket read buffers only once some
    // 64 MiB of them are garbage: a bare node:http server draining the same bytes grows by
    // 50-60 MiB. Hence a wider bound for this flood only (observed: 60-70 MiB).
    expect(peak - idle).toBeLessThan(128 * MiB);
    expect(await sendSigned()).toBe(204);
  }, 60_000);
});
