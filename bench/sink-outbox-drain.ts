/**
 * The status sink's figure of issue 39: what delivering a backlog of notices costs. `--invoices`
 * invoices' status notices (four each: pending delivery and delivered, paid, tax reported) are
 * queued in the outbox of a SQLite store as the worker queues them (MessageStore.applyStatus),
 * then the sink loop, with its defaults, delivers them to the journal sink until the outbox is
 * empty: by deliverMany() (one write and one fsync a batch), or with `--one-at-a-time` through
 * deliver() alone, as a sink without deliverMany() is called and as the journal was before.
 * Prints the time, the process's CPU per invoice (every thread: the store's writer included),
 * the journal's fsyncs and the store calls the loop made. Not a test: a tool that prints the
 * figures (docs/status-sink.md#batches).
 *
 *   node bench/sink-outbox-drain.ts [--invoices 2000] [--one-at-a-time]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import type { StatusSink } from '../src/consumer/sink/define-sink.ts';
import { createSinkWorker } from '../src/consumer/sink/sink-worker.ts';
import type { SinkOutboxStore } from '../src/consumer/store/sink-outbox.ts';
import { openSqliteStore } from '../src/consumer/store/sqlite/sqlite-store.ts';
import type { StatusChangeNotice } from '../src/consumer/store/status-notice.ts';
import { createJournalSink } from '../src/sinks/journal.ts';

const { values } = parseArgs({
  options: {
    invoices: { type: 'string', default: '2000' },
    'one-at-a-time': { type: 'boolean', default: false },
  },
});
const invoices = Number(values.invoices);
const oneAtATime = values['one-at-a-time'];
const logger = pino({ level: 'warn' });

const CHANGES = [
  ['delivery', 'pendingdelivery'],
  ['delivery', 'delivered'],
  ['lifecycle', 'paid'],
  ['taxReporting', 'electronic'],
] as const;

const dir = mkdtempSync(join(tmpdir(), 'sink-outbox-drain-'));
const store = await openSqliteStore(join(dir, 'consumer.db'));
let at = 1_800_000_000_000;
const writes: Promise<boolean>[] = [];
for (let i = 0; i < invoices; i++) {
  const messageId = `invoice-${i}`;
  for (const [kind, value] of CHANGES) {
    const notice: StatusChangeNotice = {
      id: `${messageId}:${kind}:${value}`,
      messageId,
      transfer: 'inbound',
      kind,
      formerValue: null,
      newValue: value,
      occurredAt: new Date(++at).toISOString(),
      source: 'event',
      properties: null,
      validationResults: null,
    };
    writes.push(
      store.messages.applyStatus(
        { messageId, transfer: 'inbound' },
        { kind, value, at, source: 'change', notice },
        Date.now(),
      ),
    );
  }
  if (writes.length >= 400) await Promise.all(writes.splice(0));
}
await Promise.all(writes);
const queued = (await store.sinkOutbox.stats()).pending;

// The journal's fsyncs: every FileHandle's sync() counted on the way through.
const probe = await open(join(dir, 'probe'), 'w');
const handles = Object.getPrototypeOf(probe) as { sync(): Promise<void> };
await probe.close();
let fsyncs = 0;
const sync = handles.sync;
handles.sync = function (this: unknown) {
  fsyncs++;
  return sync.call(this);
};

// The store calls the loop makes, by name.
const calls = { claimDue: 0, markDelivered: 0, markFailed: 0 };
const outbox: SinkOutboxStore = {
  ...store.sinkOutbox,
  claimDue(...args) {
    calls.claimDue++;
    return store.sinkOutbox.claimDue(...args);
  },
  markDelivered(...args) {
    calls.markDelivered++;
    return store.sinkOutbox.markDelivered(...args);
  },
  markFailed(...args) {
    calls.markFailed++;
    return store.sinkOutbox.markFailed(...args);
  },
};

const journal = await createJournalSink({ file: join(dir, 'status-journal.jsonl'), logger });
const sink: StatusSink = oneAtATime
  ? { deliver: (notice, options) => journal.deliver(notice, options) }
  : journal;
const cpu = process.cpuUsage();
const started = performance.now();
const worker = createSinkWorker({ outbox, sink, logger, now: Date.now });
worker.start();
while ((await store.sinkOutbox.stats()).pending > 0) {
  await new Promise((resolve) => setTimeout(resolve, 5));
}
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
await worker.stop();
await journal.close?.();
await store.close();
rmSync(dir, { recursive: true, force: true });

console.log(
  JSON.stringify({
    deliver: oneAtATime ? 'deliver() one at a time' : 'deliverMany()',
    invoices,
    notices: queued,
    seconds: Number((ms / 1000).toFixed(2)),
    cpuMsPerInvoice: Number(((used.user + used.system) / 1000 / invoices).toFixed(3)),
    journalFsyncs: fsyncs,
    storeCalls: calls,
  }),
);
