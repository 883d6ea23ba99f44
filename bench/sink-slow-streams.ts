/**
 * The status sink's figure of issue 37: how long ordinary notices wait while some streams'
 * ERP calls hang. The sink loop runs with its default settings (sink/sink-worker.ts, on a
 * SQLite file), delivering through the erp-http sink (its defaults: 10 s for the headers, 30 s
 * a call) to a test ERP on a free port (test/support/status-erp.ts) that never answers the
 * `--slow` streams and answers every other notice at once. Once the first slow head is at the
 * ERP, `--ordinary` notices of other messages are stored, one every `--every` ms; the delay of
 * each is from its store to the ERP taking it. Not a test: a tool that prints the figures.
 *
 *   node bench/sink-slow-streams.ts [--checkout <dir>] [--slow 10] [--ordinary 100]
 *                                   [--every 100] [--cap 1200]
 *
 * `--checkout` runs the loop, store and sink of another checkout (a worktree at main, for the
 * figure before); the test ERP is this one's. The run ends when every ordinary notice is at
 * the ERP, or after `--cap` seconds, the ones still waiting then counted as such.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import type { StatusChangeNotice } from '../src/consumer/store/status-notice.ts';
import { deliveredNotice } from '../test/support/notices.ts';
import { startStatusErp } from '../test/support/status-erp.ts';

const { values } = parseArgs({
  options: {
    checkout: { type: 'string', default: resolve(import.meta.dirname, '..') },
    slow: { type: 'string', default: '10' },
    ordinary: { type: 'string', default: '100' },
    every: { type: 'string', default: '100' },
    cap: { type: 'string', default: '1200' },
  },
});
const root = resolve(values.checkout);
const slowStreams = Number(values.slow);
const ordinaryCount = Number(values.ordinary);
const everyMs = Number(values.every);
const capMs = Number(values.cap) * 1000;

// The checkout's own modules: its loop, store and sink, as they were there.
const load = (path: string) => import(pathToFileURL(join(root, path)).href);
const { createSinkWorker } = await load('src/consumer/sink/sink-worker.ts');
const { openSqliteStore } = await load('src/consumer/store/sqlite/sqlite-store.ts');
const { createErpHttpSink } = await load('src/sinks/erp-http.ts');

const change = (messageId: string) => deliveredNotice(messageId);

const dir = mkdtempSync(join(tmpdir(), 'sink-slow-streams-'));
const store = await openSqliteStore(join(dir, 'consumer.db'));
const erp = await startStatusErp();
erp.behave((notice) => (notice.messageId?.startsWith('slow-') ? 'hang' : 'answer'));

async function queue(notice: StatusChangeNotice): Promise<number> {
  const at = Date.now();
  await store.messages.applyStatus(
    { messageId: notice.messageId, transfer: notice.transfer },
    { kind: notice.kind, value: notice.newValue, at: 1000, source: 'change', notice },
    at,
  );
  return at;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
for (let i = 0; i < slowStreams; i++) await queue(change(`slow-${i}`));
const worker = createSinkWorker({
  outbox: store.sinkOutbox,
  sink: createErpHttpSink({ SINK_ERP_URL: erp.url }),
  logger: pino({ level: 'silent' }),
  now: Date.now,
});
const started = Date.now();
worker.start();
while (erp.requests('slow-0:1') === 0) await sleep(10);

const storedAt = new Map<string, number>();
for (let i = 0; i < ordinaryCount; i++) {
  const notice = change(`ordinary-${i}`);
  storedAt.set(notice.id, await queue(notice));
  await sleep(everyMs);
}
const ordinaryTaken = () => erp.taken().filter((t) => storedAt.has(t.notice.id));
while (ordinaryTaken().length < ordinaryCount && Date.now() - started < capMs) await sleep(100);

// A notice still waiting at the end counts with its wait so far: a lower bound, flagged.
const end = Date.now();
const takenAt = new Map(ordinaryTaken().map((t) => [t.notice.id, t.at]));
const delays = [...storedAt].map(([id, at]) => (takenAt.get(id) ?? end) - at).sort((a, b) => a - b);
const seconds = (ms: number | undefined) => (ms === undefined ? null : Math.round(ms / 100) / 10);
const first = ordinaryTaken()[0];
const figures = {
  checkout: root,
  slowStreams,
  ordinary: ordinaryCount,
  delivered: takenAt.size,
  waitingAtEnd: ordinaryCount - takenAt.size,
  runSeconds: seconds(end - started),
  // The first ordinary notice the ERP took, from its store; then over all of them.
  firstDelaySeconds: seconds(
    first === undefined ? undefined : first.at - (storedAt.get(first.notice.id) as number),
  ),
  medianDelaySeconds: seconds(delays[Math.floor((delays.length - 1) / 2)]),
  maxDelaySeconds: seconds(delays.at(-1)),
  // When some were still waiting, the median and max are at least these.
  lowerBounds: takenAt.size < ordinaryCount,
  slowHeadAttempts: erp.requests('slow-0:1'),
};
console.log(JSON.stringify(figures));

// Stopping may wait for a call in hand (a hang runs to its timeout): leave without it.
void worker.stop();
await erp.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
