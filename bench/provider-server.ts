/**
 * The embedded provider simulator as the backlog benchmarks' messaging API, in a process of its
 * own (its CPU is reported apart from the consumer's). Commands:
 *   seed {count, file}  creates `count` inbound invoices from the demo supplier to the sandbox
 *                       participant, waits until each is pendingdelivery, and writes the
 *                       participant's inbound events (created, messageStatusChanged,
 *                       deliveryNotified) to `file` as JSON lines; answers the message ids
 *   delivered {}        how many of the seeded messages are delivered on their inbound side
 * No webhook endpoint is set up: the benchmark stores the events itself.
 */
import { writeFile } from 'node:fs/promises';
import { pino } from 'pino';
import type { WebhookEnvelope } from '../src/protocol/index.ts';
import { startProvider } from '../src/provider/provider.ts';
import { serveControl } from './server-control.ts';

const PARTY = '0192:999999999';
const published: WebhookEnvelope[] = [];
const running = await startProvider({
  logger: pino({ level: 'warn' }),
  tap: { publish: (envelope) => published.push(envelope) },
});
let seeded: string[] = [];

async function seed({ count, file }: { count: number; file: string }): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next += 1;
      const res = await fetch(`${running.url}/admin/messages/inbound`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      ids.push(((await res.json()) as { messageId: string }).messageId);
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
  const wanted = new Set(ids);
  const isReady = (e: WebhookEnvelope) =>
    e.action === 'deliveryNotified' && e.transfer === 'inbound' && wanted.has(e.messageId);
  while (published.filter(isReady).length < count) await new Promise((r) => setTimeout(r, 20));
  const events = published.filter(
    (e) => e.party === PARTY && e.transfer === 'inbound' && wanted.has(e.messageId),
  );
  await writeFile(file, `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
  published.length = 0;
  seeded = ids;
  return ids;
}

async function delivered(): Promise<number> {
  const { messages } = running.provider.model;
  return seeded.filter((id) => messages.get(id).sides.inbound?.status === 'delivered').length;
}

serveControl(running.url, () => running.close(), { seed, delivered });
