/**
 * The status sink's loop (src/consumer/sink/sink-worker.ts) against an ERP that is slow for
 * some messages, on both stores: the erp-http sink posting to a test ERP on a free port
 * (test/support/status-erp.ts) whose answer for ten streams never comes or comes a byte at a
 * time. Issue 37: before, the loop delivered one notice at a time across all streams, so two
 * such notices kept every other stream waiting for minutes (173 s measured) and ten held them
 * for good. Now each stream's head holds a slot of its own, for one delivery deadline at most.
 *
 * The notices are queued as the worker queues them, with their status writes
 * (MessageStore.applyStatus), and the loop runs with its defaults but for a short delivery
 * deadline and short retry delays (which bring the slow heads back the most often).
 */
import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { StatusSink } from '../../../src/consumer/sink/define-sink.ts';
import { createSinkWorker, type SinkWorker } from '../../../src/consumer/sink/sink-worker.ts';
import type { StatusChangeNotice } from '../../../src/consumer/store/status-notice.ts';
import { REMOTE_TEXT_LIMIT } from '../../../src/consumer/text/error-text.ts';
import { createErpHttpSink } from '../../../src/sinks/erp-http.ts';
import { startTestConsumer } from '../../support/consumer.ts';
import { deliveryChange, queueNotice } from '../../support/notices.ts';
import { eventually } from '../../support/sandbox.ts';
import { type StatusErp, startStatusErp } from '../../support/status-erp.ts';
import { type DisposableStore, describeEachStore, useEmptyStore } from '../../support/stores.ts';

/** Short, so the test is; the bound it asserts is this. */
const DEADLINE_MS = 2_000;
const SLOW_STREAMS = 10;
const NOTICES_PER_SLOW_STREAM = 3;
/** Ordinary notices: two for each of fifty messages. */
const ORDINARY_MESSAGES = 50;
const silent = pino({ level: 'silent' });

let store: DisposableStore;
let erp: StatusErp | undefined;
let worker: SinkWorker | undefined;
afterEach(async () => {
  worker?.abort();
  await worker?.stop();
  await erp?.close();
  worker = undefined;
  erp = undefined;
});

/** Stores the change's status, which queues its notice; when it was stored. */
async function queue(notice: StatusChangeNotice): Promise<number> {
  const storedAt = Date.now();
  expect(await queueNotice(store.messages, notice, storedAt)).toBe(true);
  return storedAt;
}

function startWorker(sink: StatusSink, logger = silent): SinkWorker {
  const started = createSinkWorker({
    outbox: store.sinkOutbox,
    sink,
    logger,
    now: Date.now,
    deliveryTimeoutMs: DEADLINE_MS,
    retryBaseMs: 100,
    retryMaxMs: 500,
  });
  started.start();
  worker = started;
  return started;
}

const slowStream = (i: number) => `slow-${i}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeEachStore('the status sink loop', (kind) => {
  useEmptyStore(kind, (opened) => {
    store = opened;
  });

  it('delivers every other notice within one delivery deadline while ten streams hang or drip, keeps each stream in order, and loses nothing once the ERP recovers', async () => {
    const slowErp = await startStatusErp({ dripEveryMs: 200 });
    erp = slowErp;
    let slow = true;
    // Half the slow streams never get an answer, the other half get one a byte at a time.
    slowErp.behave((notice) => {
      const match = /^slow-(\d+)$/.exec(notice.messageId ?? '');
      if (!slow || match === null) return 'answer';
      return Number(match[1]) % 2 === 0 ? 'hang' : 'drip';
    });
    const queued: StatusChangeNotice[] = [];
    for (let i = 0; i < SLOW_STREAMS; i++) {
      for (let n = 1; n <= NOTICES_PER_SLOW_STREAM; n++) {
        const notice = deliveryChange(slowStream(i), n);
        await queue(notice);
        queued.push(notice);
      }
    }
    startWorker(createErpHttpSink({ SINK_ERP_URL: slowErp.url }));
    // The slow heads are in hand at the ERP before the first ordinary notice is stored.
    await eventually(
      async () => slowErp.requests(`${slowStream(0)}:1`) > 0,
      'a slow head at the ERP',
    );

    const storedAt = new Map<string, number>();
    for (let n = 1; n <= 2; n++) {
      for (let m = 0; m < ORDINARY_MESSAGES; m++) {
        const notice = deliveryChange(`ordinary-${m}`, n);
        storedAt.set(notice.id, await queue(notice));
        queued.push(notice);
        // Spread over some 5 s: stored while the slow heads are cut and come back, twice.
        await sleep(50);
      }
    }
    const ordinary = await eventually(
      async () => {
        const taken = slowErp.taken().filter((t) => storedAt.has(t.notice.id));
        return taken.length === storedAt.size ? taken : undefined;
      },
      `the ${storedAt.size} ordinary notices at the ERP`,
      15_000,
    );
    const delays = ordinary.map((t) => t.at - (storedAt.get(t.notice.id) as number));
    expect(Math.max(...delays)).toBeLessThanOrEqual(DEADLINE_MS);
    // Meanwhile every slow head was cut at the deadline and tried again, none delivered.
    for (let i = 0; i < SLOW_STREAMS; i++) {
      expect(slowErp.requests(`${slowStream(i)}:1`), slowStream(i)).toBeGreaterThan(1);
    }
    expect(slowErp.taken().filter((t) => t.notice.messageId?.startsWith('slow-'))).toEqual([]);

    slow = false;
    await eventually(
      async () => (await store.sinkOutbox.stats()).pending === 0,
      'the outbox drained once the ERP answers',
      15_000,
    );
    const taken = slowErp.taken().map((t) => t.notice);
    // Every notice once, none lost, none twice.
    expect(taken.map((n) => n.id).sort()).toEqual(queued.map((n) => n.id).sort());
    expect(slowErp.repeats()).toBe(0);
    // Each stream in the order it was queued: each change's formerValue the one before's.
    const streams = new Map<string, string[]>();
    for (const notice of taken) {
      const key = notice.messageId ?? '';
      streams.set(key, [...(streams.get(key) ?? []), notice.newValue]);
    }
    for (const [messageId, values] of streams) {
      const count = messageId.startsWith('slow-') ? NOTICES_PER_SLOW_STREAM : 2;
      expect(values, messageId).toEqual(Array.from({ length: count }, (_, i) => `step-${i + 1}`));
    }
  }, 60_000);

  it('waits at most one delivery deadline for a sink that never answers and ignores its signal, and gives the notice up at once when aborted', async () => {
    // A forked sink written before the signal existed: it hangs, whatever it is told.
    const { sink: hanging, signals } = hangingSink();
    const loop = startWorker(hanging);
    await queue(deliveryChange('hung-1', 1));
    await eventually(async () => signals.length === 1, 'the notice in the sink');
    // stop() gives it its deadline, then counts it as not delivered: the stop ends.
    const stop = await Promise.race([
      loop.stop().then(() => 'stopped'),
      sleep(DEADLINE_MS + 1_500).then(() => 'still waiting for the sink'),
    ]);
    expect(stop).toBe('stopped');
    expect(signals[0]?.aborted).toBe(true);
    const [afterStop] = await store.sinkOutbox.list({ limit: 1 });
    expect(afterStop).toMatchObject({ attempts: 1, deliveredAt: null });
    expect(afterStop?.lastError).toMatch(/did not take the notice within 2000 ms/);

    // A shutdown past its deadline: abort() cuts the notice in hand now, due again at once.
    const second = startWorker(hanging);
    await eventually(async () => signals.length === 2, 'the notice in the sink again', 5_000);
    second.abort();
    const aborted = await Promise.race([
      second.stop().then(() => 'stopped'),
      sleep(DEADLINE_MS / 2).then(() => 'still waiting for the sink'),
    ]);
    expect(aborted).toBe('stopped');
    expect(signals[1]?.aborted).toBe(true);
    const [afterAbort] = await store.sinkOutbox.list({ limit: 1 });
    expect(afterAbort).toMatchObject({ attempts: 2, deliveredAt: null });
    expect(afterAbort?.lastError).toMatch(/the consumer stopped before the status sink answered/);
    expect(afterAbort?.nextAttemptAt).toBeLessThanOrEqual(Date.now());
  });

  it("stores and logs a forked sink's error printable and bounded, as the API's error text", async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const wordy: StatusSink = {
      // An ERP's whole answer, coloured, over several lines; thrown before any promise.
      deliver() {
        throw new Error(`\u001b[31mrefused\u001b[0m\r\n${'the ERP says no. '.repeat(200)}\u0007`);
      },
    };
    startWorker(wordy, logger);
    await queue(deliveryChange('wordy-1', 1));
    const row = await eventually(async () => {
      const [first] = await store.sinkOutbox.list({ limit: 1 });
      return first?.lastError === null ? undefined : first;
    }, 'the refusal recorded');
    const stored = row.lastError ?? '';
    expect(stored).toMatch(/^refused the ERP says no\. the ERP/);
    expect(stored.length).toBeLessThanOrEqual(REMOTE_TEXT_LIMIT);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
    expect(stored).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    const logged = lines
      .map((line) => JSON.parse(line) as { msg: string; err?: string })
      .find((line) => line.msg.startsWith('status sink refused a notice'));
    expect(logged?.err).toBe(stored);
  });
});

/** A sink that never answers, whatever its signal says; the signals it was handed, in order. */
function hangingSink(): { sink: StatusSink; signals: (AbortSignal | undefined)[] } {
  const signals: (AbortSignal | undefined)[] = [];
  const sink: StatusSink = {
    deliver: (_notice, options) => {
      signals.push(options?.signal);
      return new Promise<void>(() => {});
    },
  };
  return { sink, signals };
}

describe('the status sink loop in the consumer', () => {
  it('takes its deadline from SINK_DELIVERY_TIMEOUT_MS, and gives up the notice in hand at a shutdown past its deadline', async () => {
    const { sink: hanging, signals } = hangingSink();
    const tuning = { sinkWorker: { pollMs: 20, retryBaseMs: 100, retryMaxMs: 200 } };
    const first = await startTestConsumer(
      { SINK_DELIVERY_TIMEOUT_MS: '500' },
      { startWorker: true, sink: hanging, ...tuning },
    );
    onTestFinished(() => rmSync(first.dir, { recursive: true, force: true }));
    const key = { messageId: 'in-consumer', transfer: 'outbound' as const };
    const notice = deliveryChange(key.messageId, 1);
    await first.store.messages.applyStatus(
      key,
      { kind: 'delivery', value: notice.newValue, at: 1000, source: 'change', notice },
      Date.now(),
    );
    const refused = await eventually(async () => {
      const [row] = await first.store.sinkOutbox.list({ limit: 1 });
      return row?.lastError === null ? undefined : row;
    }, 'the first attempt cut at 500 ms');
    expect(refused.lastError).toMatch(/within 500 ms \(SINK_DELIVERY_TIMEOUT_MS\)/);
    await first.close();

    // Restarted with the default deadline (30 s) and a 1 s shutdown: the stop cannot wait for
    // the sink, so the notice in hand is given up, its call told so through the signal.
    const second = await startTestConsumer(
      { SHUTDOWN_TIMEOUT_MS: '1000' },
      { startWorker: true, sink: hanging, dir: first.dir, ...tuning },
    );
    onTestFinished(() => second.close().then(() => undefined));
    const inHand = signals.length + 1;
    await eventually(async () => signals.length >= inHand, 'the notice in the sink again');
    const { forced } = await second.close();
    expect(forced).toBe(true);
    expect(signals.at(-1)?.aborted).toBe(true);
  });
});
