/**
 * Measures the consumer under the JSON bombs of issue 26 (point 1), for the figures in
 * SECURITY.md ("JSON bounded in shape"). Not a test (a timed test would be flaky on a shared
 * machine); a tool to print the numbers:
 *
 *   node test/security/measure-json-bombs.ts [path/to/src/main.ts] [seconds] [flood]
 *
 * The first argument runs the same attacks against another checkout of the consumer (the
 * figures "before"; '' for this one); the second is how long the attack lasts (default 10).
 * For that long, at once:
 *   - a hostile messaging API answers every GET /messages/:mid with a 15 MiB descriptor of
 *     nested arrays (under the old 16 MiB cap), and 4 deliveryNotified events without a
 *     descriptor make the worker ask for it;
 *   - 8 signed 1 MiB bodies of nested arrays are posted at once, every second (the audit's 8
 *     concurrent bodies, again and again); with `flood`, 8 senders post them back to back
 *     instead, which measures the cost of 1 MiB signed bodies (HMAC, reading) more than JSON;
 *   - a legitimate signed webhook goes every 20 ms, its answer time recorded.
 * Printed: idle and peak RSS of the consumer process (its /proc/<pid>/status), the legitimate
 * webhooks' statuses and p50/p99/max answer times, what the nested bodies were answered, and
 * what became of the 4 events.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { buildEnvelope, signedRequest } from '../support/webhooks.ts';
import { startConsumerProcess } from './support/consumer-process.ts';
import { MiB, measurePeak, readMemory } from './support/floods.ts';

const main = process.argv[2] === '' ? undefined : process.argv[2];
const seconds = Number(process.argv[3] ?? 10);
const flood = process.argv[4] === 'flood';
const secret = 'whsec_measure_json_bombs_secret_0123456789';
const adminToken = 'measure-json-bombs-admin-token-0123456789';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
// 15 MiB of nested arrays in a descriptor, built once.
const descriptorBomb = Buffer.from(`{"messageId":"m","documents":${nested((15 * MiB - 64) / 2)}}`);
// An envelope whose data is nested arrays, just under the 1 MiB body limit.
const bodyBomb = (() => {
  const envelope = JSON.stringify(buildEnvelope({ data: 0 }));
  const room = MiB - Buffer.byteLength(envelope) - 64;
  return envelope.replace('"data":0', `"data":${nested(Math.floor(room / 2))}`);
})();

const api = createServer((req, res) => {
  if (req.method === 'GET' && req.url?.startsWith('/messages/')) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(descriptorBomb);
  } else {
    res.writeHead(404, { 'content-type': 'application/problem+json' }).end('{"title":"nope"}');
  }
});
api.listen(0, '127.0.0.1');
await once(api, 'listening');

const consumer = await startConsumerProcess(
  {
    WEBHOOK_SECRETS: secret,
    API_BASE_URL: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
    API_TOKEN: 'measure-token',
    ADMIN_TOKEN: adminToken,
  },
  main === undefined ? {} : { main },
);
const url = `${consumer.url}/webhooks`;

async function post(agent: Agent, body: unknown): Promise<number> {
  const signed = signedRequest(body, { secrets: [secret] });
  const res = await request(url, {
    method: 'POST',
    headers: signed.headers,
    body: signed.body,
    dispatcher: agent,
  });
  await res.body.dump();
  return res.statusCode;
}

const count = (into: Record<string, number>, key: string | number) => {
  into[key] = (into[key] ?? 0) + 1;
};

try {
  await delay(500);
  const idle = readMemory(consumer.pid).rss;
  const legitimate = new Agent({ connections: 4 });
  const attackers = new Agent({ connections: 8 });
  const bombEvents = Array.from({ length: 4 }, () =>
    buildEnvelope({ action: 'deliveryNotified', data: null }),
  );
  const legitTimes: number[] = [];
  const legitStatuses: Record<string, number> = {};
  const bodyStatuses: Record<string, number> = {};

  const { peak } = await measurePeak(consumer.pid, async () => {
    const end = Date.now() + seconds * 1000;
    const legit = (async () => {
      const pending: Promise<void>[] = [];
      for (let next = performance.now(); Date.now() < end; next += 20) {
        await delay(Math.max(0, next - performance.now()));
        const started = performance.now();
        pending.push(
          post(legitimate, buildEnvelope()).then(
            (status) => {
              legitTimes.push(performance.now() - started);
              count(legitStatuses, status);
            },
            (error: unknown) => count(legitStatuses, (error as Error).name),
          ),
        );
      }
      await Promise.all(pending);
    })();
    for (const event of bombEvents)
      count(bodyStatuses, `bomb event ${await post(legitimate, event)}`);
    const sendBomb = () =>
      post(attackers, bodyBomb).then(
        (status) => count(bodyStatuses, status),
        (error: unknown) => count(bodyStatuses, (error as Error).name),
      );
    const senders = Array.from({ length: 8 }, async () => {
      for (let next = performance.now(); Date.now() < end; next += 1000) {
        if (!flood) await delay(Math.max(0, next - performance.now()));
        await sendBomb();
      }
    });
    await Promise.all([legit, ...senders]);
  });

  type EventView = { eventId: string; state: string; attempts: number; lastError: string | null };
  const items: EventView[] = [];
  for (let after: string | null = ''; after !== null; ) {
    const query = after === '' ? '' : `&after=${encodeURIComponent(after)}`;
    const res = await request(`${consumer.url}/admin/events?limit=1000${query}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    const page = (await res.body.json()) as { items: EventView[]; next: string | null };
    items.push(...page.items);
    after = page.next;
  }
  const ids = new Set(bombEvents.map((e) => e.eventId));
  const sorted = legitTimes.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const mib = (n: number) => Math.round((n / MiB) * 10) / 10;
  const ms = (n: number) => Math.round(n);
  console.log(
    JSON.stringify(
      {
        consumer: main ?? 'this checkout',
        seconds,
        nestedBodiesSent: flood ? '8 back to back' : '8 at once, every second',
        idleMiB: mib(idle),
        peakMiB: mib(peak),
        growthMiB: mib(peak - idle),
        legitimate: {
          sent: sorted.length,
          statuses: legitStatuses,
          p50ms: ms(at(0.5)),
          p99ms: ms(at(0.99)),
          maxMs: ms(sorted.at(-1) ?? 0),
        },
        nestedBodies: bodyStatuses,
        bombEvents: items
          .filter((item) => ids.has(item.eventId))
          .map(({ state, attempts, lastError }) => ({
            state,
            attempts,
            lastError: lastError?.slice(0, 160) ?? null,
          })),
        storedEvents: items.length,
      },
      null,
      2,
    ),
  );
  await legitimate.close();
  await attackers.close();
} finally {
  await consumer.stop();
  api.closeAllConnections();
  api.close();
}
