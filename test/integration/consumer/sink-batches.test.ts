/**
 * The status sink's loop with a sink that takes batches (deliverMany, issue 39 part 4), on both
 * stores: the heads of several streams in one call, each stream still in order; the notices
 * it took marked delivered in one store call; a notice it refuses coming back alone while the
 * others of its batch are delivered; and the journal, when the process dies between its
 * append and the outbox's record, handed the same notices (same ids) again and holding each
 * once.
 *
 * The notices are queued as the worker queues them, with their status writes
 * (MessageStore.applyStatus), and the loop runs with short retry delays.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import type { NoticeOutcome, StatusSink } from '../../../src/consumer/sink/define-sink.ts';
import {
  createSinkWorker,
  type SinkWorker,
  type SinkWorkerOptions,
} from '../../../src/consumer/sink/sink-worker.ts';
import type { SinkOutboxStore } from '../../../src/consumer/store/sink-outbox.ts';
import type {
  StatusChangeNotice,
  StatusNotice,
} from '../../../src/consumer/store/status-notice.ts';
import { createJournalSink } from '../../../src/sinks/journal.ts';
import { deliveryChange, queueNotice } from '../../support/notices.ts';
import { eventually } from '../../support/sandbox.ts';
import { type DisposableStore, describeEachStore, useEmptyStore } from '../../support/stores.ts';
import { testFolder } from '../../support/test-folder.ts';

const silent = pino({ level: 'silent' });

let store: DisposableStore;
const workers: SinkWorker[] = [];
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
});

/** Stores each change's status, which queues its notice, in the order given. */
async function queue(notices: StatusChangeNotice[]): Promise<void> {
  for (const notice of notices) expect(await queueNotice(store.messages, notice)).toBe(true);
}

/** `streams` messages with `count` changes each, queued stream after stream. */
function changes(prefix: string, streams: number, count: number): StatusChangeNotice[] {
  return Array.from({ length: streams }, (_, s) =>
    Array.from({ length: count }, (_, n) => deliveryChange(`${prefix}-${s}`, n + 1)),
  ).flat();
}

/** The outbox, with each markDelivered call's seqs recorded. */
function countingOutbox(
  outbox: SinkOutboxStore,
  options: { failMarks?: number } = {},
): SinkOutboxStore & { marks: number[][] } {
  const marks: number[][] = [];
  let failMarks = options.failMarks ?? 0;
  return Object.assign(Object.create(outbox) as SinkOutboxStore, {
    marks,
    async markDelivered(seqs: readonly number[], now: number) {
      if (failMarks > 0) {
        failMarks--;
        // The process dies here: the sink has the notices, the outbox never hears of it.
        throw new Error('killed before the outbox recorded the delivery');
      }
      marks.push([...seqs]);
      return outbox.markDelivered(seqs, now);
    },
  });
}

/** A batch sink that records each call's notice ids and answers with `answer`. */
function recordingBatchSink(answer: (notice: StatusNotice) => NoticeOutcome = fulfilled) {
  const batches: string[][] = [];
  const taken: StatusNotice[] = [];
  const sink: StatusSink = {
    deliver: () => Promise.reject(new Error('deliver() called on a batch sink')),
    async deliverMany(notices) {
      batches.push(notices.map((n) => n.id));
      const outcomes = notices.map(answer);
      for (const [i, notice] of notices.entries()) {
        if (outcomes[i]?.status === 'fulfilled') taken.push(notice);
      }
      return outcomes;
    },
  };
  return { sink, batches, taken };
}

function fulfilled(): NoticeOutcome {
  return { status: 'fulfilled' };
}

function startWorker(options: Partial<SinkWorkerOptions> & { sink: StatusSink }): SinkWorker {
  const worker = createSinkWorker({
    outbox: store.sinkOutbox,
    logger: silent,
    now: Date.now,
    pollMs: 50,
    retryBaseMs: 100,
    retryMaxMs: 200,
    ...options,
  });
  worker.start();
  workers.push(worker);
  return worker;
}

const drained = () =>
  eventually(async () => (await store.sinkOutbox.stats()).pending === 0, 'the outbox drained');

/** Each stream's newValues in the order the sink took them. */
function byStream(taken: readonly StatusNotice[]): Map<string, string[]> {
  const streams = new Map<string, string[]>();
  for (const notice of taken) {
    if (notice.kind === 'submission') continue;
    streams.set(notice.messageId, [...(streams.get(notice.messageId) ?? []), notice.newValue]);
  }
  return streams;
}

describeEachStore('the status sink loop with a batch sink', (kind) => {
  useEmptyStore(kind, (opened) => {
    store = opened;
  });

  it('hands the heads of several streams in one call, each stream in order, each batch marked delivered in one store call', async () => {
    const queued = changes('batched', 5, 3);
    await queue(queued);
    const outbox = countingOutbox(store.sinkOutbox);
    const { sink, batches, taken } = recordingBatchSink();
    startWorker({ sink, outbox });
    await drained();

    // Three rounds of the five heads: each call one notice of each stream, never two.
    expect(batches).toHaveLength(3);
    for (const batch of batches) {
      expect(batch).toHaveLength(5);
      expect(new Set(batch.map((id) => id.split(':')[0])).size).toBe(5);
    }
    for (const [stream, values] of byStream(taken)) {
      expect(values, stream).toEqual(['step-1', 'step-2', 'step-3']);
    }
    // One markDelivered (one commit) per call, with every notice of it.
    expect(outbox.marks.map((seqs) => seqs.length)).toEqual([5, 5, 5]);
    expect(taken.map((n) => n.id).sort()).toEqual(queued.map((n) => n.id).sort());
  });

  it('takes no more than SINK_CONCURRENCY notices in one call', async () => {
    await queue(changes('wide', 10, 1));
    const { sink, batches } = recordingBatchSink();
    startWorker({ sink, concurrency: 4 });
    await drained();
    expect(batches.map((b) => b.length)).toEqual([4, 4, 2]);
  });

  it('brings back alone a notice the sink refuses in a batch: the others delivered, its stream held back until it is taken', async () => {
    const queued = [...changes('fine', 3, 2), ...changes('refused', 1, 2)];
    await queue(queued);
    let refusals = 2;
    const { sink, batches, taken } = recordingBatchSink((notice) => {
      if (notice.id === 'refused-0:1' && refusals > 0) {
        refusals--;
        return { status: 'rejected', reason: new Error('the ERP refused refused-0:1') };
      }
      return { status: 'fulfilled' };
    });
    startWorker({ sink });
    await drained();
    // Refused twice, then taken; the other streams went on meanwhile: both their notices
    // were taken before it, and its own stream's second notice only after it.
    expect(batches.filter((b) => b.includes('refused-0:1'))).toHaveLength(3);
    expect(batches[0]).toEqual(
      expect.arrayContaining(['fine-0:1', 'fine-1:1', 'fine-2:1', 'refused-0:1']),
    );
    const order = taken.map((n) => n.id);
    const refusedAt = order.indexOf('refused-0:1');
    for (const id of ['fine-0:2', 'fine-1:2', 'fine-2:2']) {
      expect(order.indexOf(id), id).toBeLessThan(refusedAt);
    }
    expect(byStream(taken).get('refused-0')).toEqual(['step-1', 'step-2']);
    const rows = await store.sinkOutbox.list({ limit: 20 });
    expect(rows.find((r) => r.notice.id === 'refused-0:1')).toMatchObject({
      attempts: 2,
      lastError: 'the ERP refused refused-0:1',
    });
    expect(rows.filter((r) => r.notice.id !== 'refused-0:1').map((r) => r.attempts)).toEqual(
      Array(7).fill(0),
    );
  });

  it('counts a batch that throws, and a notice left without an outcome, as not delivered', async () => {
    await queue(changes('odd', 3, 1));
    let calls = 0;
    const sink: StatusSink = {
      deliver: () => Promise.reject(new Error('not used')),
      async deliverMany(notices) {
        calls++;
        if (calls === 1) throw new Error('the bulk endpoint is down');
        // An answer one short: the last notice has no outcome.
        if (calls === 2) return notices.slice(1).map(fulfilled);
        return notices.map(fulfilled);
      },
    };
    startWorker({ sink });
    await drained();
    const rows = await store.sinkOutbox.list({ limit: 10 });
    const attempts = new Map(rows.map((r) => [r.notice.id, r.attempts]));
    // Call 1 refused all three; call 2 left its last notice without an outcome: that one
    // came back once more.
    expect([...attempts.values()].sort()).toEqual([1, 1, 2]);
    expect(rows.find((r) => r.attempts === 2)?.lastError).toMatch(
      /deliverMany\(\) gave no outcome for this notice/,
    );
    expect(rows.find((r) => r.attempts === 1)?.lastError).toBe('the bulk endpoint is down');
  });

  it('hands the journal the same notices again, same ids, after a crash between its append and the outbox record, and the journal holds each once', async () => {
    const dir = testFolder('sink-batches-');
    const file = join(dir, 'status-journal.jsonl');
    const queued = changes('journal', 4, 2);
    await queue(queued);
    const handed: string[] = [];
    const journal = async () => {
      const created = await createJournalSink({ file, logger: silent });
      const many = created.deliverMany?.bind(created);
      if (many === undefined) throw new Error('the journal has no deliverMany()');
      return {
        ...created,
        deliver: created.deliver.bind(created),
        deliverMany: (notices: readonly StatusNotice[], options: { signal: AbortSignal }) => {
          handed.push(...notices.map((n) => n.id));
          return many(notices, options);
        },
      } satisfies StatusSink;
    };

    // The first process: the journal appends the four heads, then the process dies before
    // the outbox records them (its lease, short here, is what a killed process leaves).
    const firstSink = await journal();
    const first = startWorker({
      sink: firstSink,
      outbox: countingOutbox(store.sinkOutbox, { failMarks: Number.POSITIVE_INFINITY }),
      leaseMs: 300,
    });
    await eventually(async () => handed.length >= 4, 'the first batch in the journal');
    await first.stop();
    workers.splice(workers.indexOf(first), 1);
    const heads = queued.filter((n) => n.id.endsWith(':1')).map((n) => n.id);
    expect(handed.slice(0, 4).sort()).toEqual(heads.sort());
    expect((await store.sinkOutbox.stats()).pending).toBe(8);

    // The next process: a new journal (reading the file's tail) and loop, once the lease ends.
    handed.length = 0;
    startWorker({ sink: await journal() });
    await drained();
    // The same four notices, same ids, handed over again; then the second changes.
    expect(handed.slice(0, 4).sort()).toEqual(heads.sort());
    expect(handed.slice(4).sort()).toEqual(
      queued
        .filter((n) => n.id.endsWith(':2'))
        .map((n) => n.id)
        .sort(),
    );
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const ids = lines.map((line) => (JSON.parse(line) as StatusNotice).id);
    expect(ids.sort()).toEqual(queued.map((n) => n.id).sort());
  });
});
