/**
 * A slow or stalled messaging API (issue 26, point 2): an API that sends a core document one
 * byte at a time, each byte within API_TIMEOUT_MS, used to hold a worker slot for as long as it
 * liked. Before the fix, four such messages held all four slots of WORKER_CONCURRENCY=4 for
 * over five minutes while an ordinary message stayed pending with 0 attempts, and /readyz said
 * ready throughout.
 *
 * Here five messages drip (one more than the slots, so one of them is always waiting), then an
 * ordinary one arrives: each dripped answer is given up within API_DEADLINE_MS (for a document
 * it is the minimum rate, API_MIN_BYTES_PER_SECOND over each API_TIMEOUT_MS, that fires first:
 * src/consumer/api/deadline.ts), the ordinary message is imported meanwhile, the dripping ones
 * are retried with the worker's backoff and imported once the API behaves, and
 * inbox_oldest_event_age_seconds shows how long the waiting one has waited. The figures are
 * logged even when the test fails (as it does on the commit before the fix); SECURITY.md ("A
 * slow or stalled API") has them.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Sandbox, startSandbox } from '../support/sandbox.ts';
import { type DripApi, startDripApi } from './support/drip-api.ts';

const SLOTS = 4;
const DRIPPING = SLOTS + 1;
const TIMEOUT_MS = 1000;
const DEADLINE_MS = 1500;
/** A byte every 300 ms: never a wait of API_TIMEOUT_MS, so no per-wait timeout fires. */
const BYTE_EVERY_MS = 300;
/** High enough that a document's deadline is API_DEADLINE_MS plus a few ms for its size. */
const MIN_BYTES_PER_SECOND = 200_000;
/** Room for a loaded machine (2 cores, a benchmark beside) between the deadline and the close. */
const SLACK_MS = 1000;

let sandbox: Sandbox;
let drip: DripApi;
let apiSlow = true;
/** The invoice number of the messages whose core document drips while the API is slow. */
const DRIP_MARK = 'DRIP-';

beforeAll(async () => {
  let providerUrl = '';
  drip = await startDripApi({
    target: () => providerUrl,
    byteEveryMs: BYTE_EVERY_MS,
    // The core documents of the marked invoices, while the API is slow.
    drip: (path, body) => apiSlow && /\/documents\/core$/.test(path) && body.includes(DRIP_MARK),
  });
  sandbox = await startSandbox({
    consumerEnv: {
      API_BASE_URL: drip.url,
      API_TIMEOUT_MS: String(TIMEOUT_MS),
      API_DEADLINE_MS: String(DEADLINE_MS),
      API_MIN_BYTES_PER_SECOND: String(MIN_BYTES_PER_SECOND),
      WORKER_CONCURRENCY: String(SLOTS),
    },
  });
  providerUrl = sandbox.provider.url;
});

/** What a run measured, logged even when it fails (the figures before the fix). */
const figures: { ordinarySentAt?: number; ordinaryImportedMs?: number } = {};

afterAll(async () => {
  if (drip !== undefined) {
    const now = Date.now();
    const held = drip.dripped.map((d) => (d.endedAt ?? now) - d.startedAt);
    const { ordinarySentAt, ordinaryImportedMs } = figures;
    const ordinary =
      ordinaryImportedMs !== undefined
        ? `imported after ${ordinaryImportedMs} ms`
        : ordinarySentAt !== undefined
          ? `NOT imported after ${now - ordinarySentAt} ms`
          : 'not sent';
    console.log(
      `slow API (${DRIPPING} messages dripped a byte every ${BYTE_EVERY_MS} ms to ${SLOTS} slots, ` +
        `API_DEADLINE_MS=${DEADLINE_MS}, API_TIMEOUT_MS=${TIMEOUT_MS}): ${drip.dripped.length} dripped answers, ` +
        `${drip.active()} still dripping (core documents of ${Math.max(0, ...drip.dripped.map((d) => d.size))} bytes, ` +
        `${Math.max(0, ...drip.dripped.map((d) => d.size)) * BYTE_EVERY_MS} ms to drip whole); ` +
        `each held its slot at most ${Math.max(0, ...held)} ms ` +
        `(median ${median(held)} ms); an ordinary message sent while the slots were held: ${ordinary}`,
    );
  }
  await sandbox?.stop();
  await drip?.close();
});

async function gauge(state: 'pending' | 'processing'): Promise<number | undefined> {
  const res = await request(`${sandbox.consumer.url}/metrics`);
  const text = await res.body.text();
  const line = new RegExp(`^inbox_oldest_event_age_seconds\\{state="${state}"\\} (\\S+)$`, 'm');
  const value = line.exec(text)?.[1];
  return value === undefined ? undefined : Number(value);
}

function deliveryEvents(messageId: string): { attempts: number; last_error: string | null }[] {
  return sandbox.consumer.store.db
    .prepare(
      "SELECT attempts, last_error FROM events WHERE message_id = ? AND action = 'deliveryNotified'",
    )
    .all(messageId) as { attempts: number; last_error: string | null }[];
}

async function imported(messageId: string): Promise<boolean> {
  const { body } = await sandbox.view(messageId);
  return body.inbound?.importedAt != null;
}

describe('a messaging API that drip-feeds documents', () => {
  it('frees each slot within the deadline, imports an ordinary message meanwhile, retries the dripped ones until the API behaves', async () => {
    const started = Date.now();
    const slow: string[] = [];
    for (let i = 0; i < DRIPPING; i++) {
      slow.push(await sandbox.sendInboundInvoice({ invoice: { invoiceNo: `${DRIP_MARK}${i}` } }));
    }
    // Every slot held by a dripping answer: the state of the finding.
    await eventually(async () => drip.active() >= SLOTS, 'every slot held by a dripped answer');

    figures.ordinarySentAt = Date.now();
    const ordinary = await sandbox.sendInboundInvoice();
    await eventually(() => imported(ordinary), 'the ordinary message imported', 10_000);
    figures.ordinaryImportedMs = Date.now() - figures.ordinarySentAt;

    // One of the dripping messages waits while the other four hold the slots: its age shows.
    const waited = await eventually(async () => {
      const age = await gauge('pending');
      return age !== undefined && age >= DEADLINE_MS / 1000 ? age : undefined;
    }, 'inbox_oldest_event_age_seconds{state="pending"} past the deadline');
    expect(waited).toBeLessThanOrEqual((Date.now() - started) / 1000 + 1);
    // Each dripping message was given up and tried again, with the limit in its last error.
    await eventually(
      async () => slow.every((id) => deliveryEvents(id).some((e) => e.attempts > 1)),
      'every dripping message retried',
    );
    const errors = slow.flatMap((id) => deliveryEvents(id).map((e) => e.last_error ?? ''));
    expect(errors.join('\n')).toMatch(/API_DEADLINE_MS|API_MIN_BYTES_PER_SECOND/);

    apiSlow = false;
    await eventually(
      async () => (await Promise.all(slow.map(imported))).every(Boolean),
      'every dripping message imported once the API behaves',
      10_000,
    );
    const model = sandbox.provider.provider.model.messages;
    await eventually(
      async () =>
        [...slow, ordinary].every((id) => model.get(id).sides.inbound?.status === 'delivered'),
      'every message acknowledged',
    );

    // Every dripped answer ended (the consumer closed it) within its deadline, with slack.
    const held = drip.dripped.map((d) => (d.endedAt ?? Date.now()) - d.startedAt);
    const documentDeadline = DEADLINE_MS + Math.max(...drip.dripped.map((d) => d.size)) * 0.005;
    expect(Math.max(...held)).toBeLessThan(documentDeadline + SLACK_MS);
    expect(drip.dripped.every((d) => d.bytesSent < d.size)).toBe(true);
    const attempts = slow.map((id) => Math.max(...deliveryEvents(id).map((e) => e.attempts)));
    console.log(
      `slow API: the dripping messages were imported after ${Math.min(...attempts)}-${Math.max(...attempts)} attempts, ${Date.now() - started} ms in all; ` +
        `given up by the deadline ${count(errors, /API_DEADLINE_MS/)} times, by the minimum rate ${count(errors, /API_MIN_BYTES_PER_SECOND/)} times (last errors)`,
    );
  }, 30_000);
});

function count(texts: string[], pattern: RegExp): number {
  return texts.filter((text) => pattern.test(text)).length;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
