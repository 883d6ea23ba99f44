/**
 * Status notices traced (issue 40), on both stores: a notice keeps the trace context of the
 * status write that queued it, and its delivery is a span under that context, the sink's own
 * call made in it, so an ERP's request joins the invoice's trace (the example ERP sink, with
 * the maintained undici instrumentation registered as the SDK does). A deliverMany() batch
 * keeps each notice in its own trace and gives the sink's call a batch span linked to them.
 *
 * The notices are queued as the worker queues them (MessageStore.applyStatus), each inside a
 * span standing for the handling that wrote its status.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { context, type SpanContext, trace } from '@opentelemetry/api';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { StatusSink } from '../../../src/consumer/sink/define-sink.ts';
import { BATCH_SPAN, NOTICE_SPAN } from '../../../src/consumer/sink/notice-spans.ts';
import { createSinkWorker, type SinkWorker } from '../../../src/consumer/sink/sink-worker.ts';
import type { StatusChangeNotice } from '../../../src/consumer/store/status-notice.ts';
import { ATTR, inSpan } from '../../../src/consumer/tracing/tracer.ts';
import { createErpHttpSink } from '../../../src/sinks/erp-http.ts';
import { closeServer, listenOnLoopback } from '../../support/loopback-server.ts';
import { deliveredNotice, queueNotice } from '../../support/notices.ts';
import { eventually } from '../../support/sandbox.ts';
import { type DisposableStore, describeEachStore, useEmptyStore } from '../../support/stores.ts';
import {
  carriedValues,
  parentOf,
  traceParentOf,
  useInMemoryTracing,
} from '../../support/tracing/in-memory-tracing.ts';

const tracing = useInMemoryTracing();
// The SDK's instrumentation that matters here: undici's client spans.
let undici: UndiciInstrumentation | undefined;
beforeAll(() => {
  // Enabled as it is built, on the global tracer provider registered above.
  undici = new UndiciInstrumentation();
});
afterAll(() => {
  undici?.disable();
});

let store: DisposableStore;
const workers: SinkWorker[] = [];
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
});

function startSink(sink: StatusSink) {
  const worker = createSinkWorker({
    outbox: store.sinkOutbox,
    sink,
    logger: pino({ level: 'silent' }),
    now: Date.now,
    pollMs: 10,
    retryBaseMs: 60_000,
  });
  workers.push(worker);
  worker.start();
  return worker;
}

/** Queues the notice's status write inside a span of its own; that span, once ended. */
async function queueInSpan(notice: StatusChangeNotice): Promise<ReadableSpan> {
  const spanId = await inSpan('handle event', {}, async (span) => {
    expect(await queueNotice(store.messages, notice)).toBe(true);
    return span.spanContext().spanId;
  });
  return spanNamed('handle event', (span) => span.spanContext().spanId === spanId);
}

function spanNamed(name: string, where: (span: ReadableSpan) => boolean = () => true) {
  const found = tracing.spans().filter((span) => span.name === name && where(span));
  expect(found, `one span ${name}`).toHaveLength(1);
  return found[0] as ReadableSpan;
}

const noticeSpanOf = (noticeId: string) =>
  eventually(async () => {
    const spans = tracing
      .spans()
      .filter((span) => span.name === NOTICE_SPAN && span.attributes[ATTR.noticeId] === noticeId);
    return spans.length === 1 ? spans[0] : undefined;
  }, `the delivery span of ${noticeId}`);

const sameSpan = (a: SpanContext | undefined, b: SpanContext) =>
  a?.traceId === b.traceId && a.spanId === b.spanId;

describeEachStore('status notices traced', (kind) => {
  useEmptyStore(kind, (opened) => {
    store = opened;
  });

  it("delivers a notice in a span under its status write's context, the ERP's request in it", async () => {
    const requests: IncomingHttpHeaders[] = [];
    const erp = createServer((req, res) => {
      requests.push(req.headers);
      req.resume().on('end', () => res.writeHead(204).end());
    });
    const erpUrl = await listenOnLoopback(erp);
    try {
      const token = 'erp-token-that-must-not-leak-0123456789';
      const notice = deliveredNotice('msg-traced-1');
      const written = await queueInSpan(notice);
      const [row] = await store.sinkOutbox.list({ limit: 1 });
      expect(row?.traceParent).toBe(traceParentOf(written));

      startSink(createErpHttpSink({ SINK_ERP_URL: erpUrl, SINK_ERP_TOKEN: token }));
      const delivered = await noticeSpanOf(notice.id);
      expect(sameSpan(delivered.parentSpanContext, written.spanContext())).toBe(true);
      expect(delivered.attributes).toMatchObject({
        [ATTR.messageId]: 'msg-traced-1',
        [ATTR.transfer]: 'outbound',
        [ATTR.noticeKind]: 'delivery',
        [ATTR.outcome]: 'delivered',
        [ATTR.attempt]: 1,
      });
      // The ERP heard a traceparent of the invoice's trace, from a request span under the
      // notice's: the sink has no tracing code of its own.
      expect(requests).toHaveLength(1);
      const heard = requests[0]?.traceparent as string;
      expect(heard.split('-')[1]).toBe(written.spanContext().traceId);
      const client = await eventually(
        async () =>
          tracing.spans().find((span) => span.spanContext().spanId === heard.split('-')[2]),
        "the ERP request's span",
      );
      expect(parentOf(client)).toBe(delivered.spanContext().spanId);
      for (const value of carriedValues(tracing.spans())) expect(value).not.toContain(token);
    } finally {
      await closeServer(erp);
    }
  });

  it('keeps each notice of a deliverMany() batch in its own trace, the call in a batch span linked to them', async () => {
    const notices = ['msg-a', 'msg-b', 'msg-c'].map((id) => deliveredNotice(id));
    const written = new Map<string, ReadableSpan>();
    for (const notice of notices) written.set(notice.id, await queueInSpan(notice));
    const calls: { ids: string[]; active: SpanContext | undefined }[] = [];
    startSink({
      deliver: () => Promise.reject(new Error('deliver() called on a batch sink')),
      async deliverMany(batch) {
        calls.push({
          ids: batch.map((n) => n.id),
          active: trace.getSpan(context.active())?.spanContext(),
        });
        return batch.map((n) =>
          n.messageId === 'msg-b'
            ? { status: 'rejected', reason: new Error('the ERP is closed for msg-b') }
            : { status: 'fulfilled' },
        );
      },
    });

    const spans = await Promise.all(notices.map((notice) => noticeSpanOf(notice.id)));
    expect(calls).toHaveLength(1);
    expect(calls[0]?.ids.sort()).toEqual(notices.map((n) => n.id).sort());
    const batch = spanNamed(BATCH_SPAN);
    // The batch is a trace of its own, the sink's call made in it.
    expect(batch.parentSpanContext).toBeUndefined();
    expect(sameSpan(calls[0]?.active, batch.spanContext())).toBe(true);
    expect(batch.attributes).toMatchObject({ [ATTR.noticeCount]: 3, [ATTR.outcome]: 'partial' });
    for (const [i, notice] of notices.entries()) {
      const span = spans[i] as ReadableSpan;
      const origin = written.get(notice.id) as ReadableSpan;
      // Under its own status write, in its own invoice's trace, linked both ways to the batch.
      expect(sameSpan(span.parentSpanContext, origin.spanContext())).toBe(true);
      expect(span.links.map((link) => link.context.spanId)).toEqual([batch.spanContext().spanId]);
      expect(batch.links.map((link) => link.context.spanId)).toContain(span.spanContext().spanId);
      expect(span.attributes[ATTR.outcome]).toBe(
        notice.messageId === 'msg-b' ? 'failed' : 'delivered',
      );
    }
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(3);
  });
});
