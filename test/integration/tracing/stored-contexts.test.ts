/**
 * What each store keeps of the caller's trace context (issue 40), on both stores: every write
 * that queues a status notice (a status change, a snapshot, a submission settled by its reply,
 * its refusal or its created webhook) keeps the context it was called in with the notice, and
 * a submission keeps the context of the request that stored it; so the work done on them later,
 * in this process or another, joins those traces. Called outside any span, they keep none.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { expect, it } from 'vitest';
import { inSpan } from '../../../src/consumer/tracing/tracer.ts';
import { deliveredNotice, queueNotice } from '../../support/notices.ts';
import { type DisposableStore, describeEachStore, useEmptyStore } from '../../support/stores.ts';
import { traceParentOf, useInMemoryTracing } from '../../support/tracing/in-memory-tracing.ts';

const tracing = useInMemoryTracing();
const NOW = 1_800_000_000_000;

let store: DisposableStore;

/** Runs `write` inside a span named after it; that span's traceparent, once ended. */
async function within(name: string, write: () => Promise<unknown>): Promise<string> {
  await inSpan(name, {}, write);
  const span = tracing.spans().find((s) => s.name === name) as ReadableSpan;
  return traceParentOf(span);
}

async function keptWith(noticeId: string) {
  const rows = await store.sinkOutbox.list({ limit: 100 });
  return rows.find((row) => row.notice.id === noticeId)?.traceParent;
}

describeEachStore('trace contexts kept with queued rows', (kind) => {
  useEmptyStore(kind, (opened) => {
    store = opened;
  });

  it("keeps a status write's context with its notice, and none outside a span", async () => {
    const change = await within('status change', () =>
      queueNotice(store.messages, deliveredNotice('m-change')),
    );
    const snapshot = await within('refresh', () =>
      store.messages.recordSnapshot(
        {
          messageId: 'm-snapshot',
          transfer: 'inbound',
          statuses: { delivery: 'delivered' },
          at: 30,
          source: 'fetch',
          notices: { delivery: { ...deliveredNotice('m-snapshot'), transfer: 'inbound' } },
        },
        NOW,
      ),
    );
    await queueNotice(store.messages, deliveredNotice('m-untraced'));
    expect(await keptWith('m-change:1')).toBe(change);
    expect(await keptWith('m-snapshot:1')).toBe(snapshot);
    expect(await keptWith('m-untraced:1')).toBeNull();
    expect(change).not.toBe(snapshot);
  });

  it("keeps a submission's request context, and each settling's with its notice", async () => {
    const add = (invoiceNo: string) =>
      store.submissions.add({ invoiceNo, body: '{}', bodyHash: 'h' }, NOW);
    const request = await within('admin request', () => add('S-1'));
    await add('S-2');
    await add('S-3');
    await add('S-untraced');
    expect((await store.submissions.get('S-1'))?.traceParent).toBe(request);
    expect((await store.submissions.get('S-untraced'))?.traceParent).toBeNull();

    const replied = await within('settle by reply', () =>
      store.submissions.markSubmitted('S-1', 'msg-1', 'reply', NOW),
    );
    const refused = await within('settle by refusal', () =>
      store.submissions.markRefused('S-2', 'HTTP 422', NOW),
    );
    await store.submissions.markSending('S-3', NOW);
    const created = await within('created webhook', () =>
      store.submissions.linkCreated('S-3', 'msg-3', NOW, 60_000, NOW),
    );
    expect(await keptWith('submission:S-1')).toBe(replied);
    expect(await keptWith('submission:S-2')).toBe(refused);
    expect(await keptWith('submission:S-3')).toBe(created);
    // A claimed submission hands its context back to the loop.
    const [claimed] = await store.submissions.claimDue(NOW, 10, 1000);
    expect(claimed).toMatchObject({ invoiceNo: 'S-untraced', traceParent: null });
  });
});
