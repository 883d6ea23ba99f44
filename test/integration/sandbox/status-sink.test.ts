/**
 * docs/status-sink.md: every status change the consumer applies reaches the status sink once,
 * in order per message side and kind, whatever the order and repetition of the events; a
 * sink that refuses is retried without loss, and a restart resumes where the outbox stands.
 *
 * The sink here records what it is handed (a test double of an ERP's module; the bundled
 * journal and HTTP sinks are tested with the same flows in test/integration/consumer/sinks).
 */
import { describe, expect, it } from 'vitest';
import type { StatusSink } from '../../../src/consumer/sink/define-sink.ts';
import type { StatusChangeNotice } from '../../../src/consumer/store/status-notice.ts';
import type { WebhookEnvelope } from '../../../src/protocol/index.ts';
import { seededRandom } from '../../../src/provider/seeded-random.ts';
import {
  eventually,
  SANDBOX_ADMIN_TOKEN,
  SANDBOX_PARTY,
  type Sandbox,
  startSandboxForTest,
} from '../../support/sandbox.ts';

/** A sink that records each notice it takes; `refuse` makes it throw while it returns true. */
function recordingSink(refuse: (notice: StatusChangeNotice) => boolean = () => false) {
  const taken: StatusChangeNotice[] = [];
  let refused = 0;
  const sink: StatusSink = {
    async deliver(notice) {
      // These flows send no invoice through the submission outbox.
      if (notice.kind === 'submission') throw new Error(`unexpected ${notice.id}`);
      if (refuse(notice)) {
        refused += 1;
        throw new Error('ERP unavailable');
      }
      taken.push(notice);
    },
  };
  return { sink, taken, refused: () => refused };
}

const stream = (n: StatusChangeNotice) => `${n.messageId} ${n.transfer} ${n.kind}`;

async function outboxEmpty(s: Sandbox) {
  await eventually(async () => {
    const stats = await s.consumer.store.sinkOutbox.stats();
    return stats.pending === 0;
  }, 'the sink outbox to drain');
}

/** The inbound status events of `messageId`, in the order the service made them. */
const statusHistory = (s: Sandbox, messageId: string) =>
  s.published.filter(
    (e) =>
      e.messageId === messageId &&
      e.party === SANDBOX_PARTY &&
      e.transfer === 'inbound' &&
      e.action.endsWith('StatusChanged'),
  );

function expectOncePerChangeInOrder(taken: StatusChangeNotice[]) {
  expect(new Set(taken.map((n) => n.id)).size).toBe(taken.length);
  const byStream = new Map<string, StatusChangeNotice[]>();
  for (const n of taken) byStream.set(stream(n), [...(byStream.get(stream(n)) ?? []), n]);
  for (const notices of byStream.values()) {
    // Each notice takes over from the one before it, at a time not earlier.
    for (let i = 1; i < notices.length; i++) {
      expect(notices[i]?.formerValue).toBe(notices[i - 1]?.newValue);
      expect(Date.parse(notices[i]?.occurredAt ?? '')).toBeGreaterThanOrEqual(
        Date.parse(notices[i - 1]?.occurredAt ?? ''),
      );
    }
  }
  return byStream;
}

describe('the status sink', () => {
  it('hears every change of an inbound invoice once, in order, with its properties', async () => {
    const recorder = recordingSink();
    const s = await startSandboxForTest({ sink: recorder.sink });
    const messageId = await s.sendInboundInvoice();
    await eventually(
      async () => (await s.view(messageId)).body.inbound?.deliveryStatus === 'delivered',
      'the consumer to deliver the invoice',
    );
    await s.admin('POST', `/messages/${messageId}/payment`, {
      paidAmount: '375.00',
      paymentDate: '2026-11-20',
    });
    await eventually(
      async () => (await s.view(messageId)).body.inbound?.lifecycleStatus === 'paid',
      'the payment to reach the consumer',
    );
    await outboxEmpty(s);

    const byStream = expectOncePerChangeInOrder(recorder.taken);
    const values = (kind: string) =>
      byStream.get(`${messageId} inbound ${kind}`)?.map((n) => n.newValue) ?? [];
    expect(values('delivery').at(-1)).toBe('delivered');
    expect(values('delivery')).toContain('pendingdelivery');
    expect(values('lifecycle').at(-1)).toBe('paid');
    const paid = byStream.get(`${messageId} inbound lifecycle`)?.at(-1);
    expect(paid).toMatchObject({ source: 'event', formerValue: 'none' });
    expect(paid?.properties).toMatchObject({ paidAmount: '375.00', paymentDate: '2026-11-20' });
  });

  it('hears an outbound invoice that failed validation, with its validation results', async () => {
    const recorder = recordingSink();
    const s = await startSandboxForTest({ sink: recorder.sink });
    const invoice = (await (
      await fetch(`${s.provider.url}/console/example-invoice.json`)
    ).json()) as {
      invoice: Record<string, unknown>;
    };
    delete invoice.invoice.currencyCode;
    const { messageId } = await s.consumer.api.submitInvoice(invoice as never);
    await eventually(
      async () => recorder.taken.some((n) => n.messageId === messageId && n.newValue === 'failed'),
      'the failure to reach the sink',
    );
    const failed = recorder.taken.find((n) => n.messageId === messageId && n.newValue === 'failed');
    expect(failed).toMatchObject({ transfer: 'outbound', kind: 'delivery', source: 'event' });
    expect(failed?.properties?.errorCode).toBe('BR-05');
    expect(failed?.validationResults?.[0]).toMatchObject({ type: 'error', code: 'BR-05' });
  });

  it('hears each change once and in order from events shuffled and repeated, through a sink that refuses at first', async () => {
    let refusals = 12;
    const recorder = recordingSink(() => refusals-- > 0);
    const s = await startSandboxForTest({ webhooks: false, sink: recorder.sink });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await s.sendInboundInvoice());
    for (const id of ids) {
      await s.api(`/messages/${id}/mark-as-delivered`, 'POST');
      await s.admin('POST', `/messages/${id}/tax-report`, {
        jurisdiction: 'Croatia',
        status: 'electronic',
      });
      await s.admin('POST', `/messages/${id}/payment`, {
        paidAmount: '1.00',
        paymentDate: '2026-11-20',
      });
    }
    const history = ids.flatMap((id) => statusHistory(s, id));
    const next = seededRandom(29);
    const events: WebhookEnvelope[] = [...history, ...history.filter(() => next() < 0.3)];
    for (let i = events.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [events[i], events[j]] = [events[j] as WebhookEnvelope, events[i] as WebhookEnvelope];
    }
    for (const e of events) expect(await s.post(e)).toBe(204);
    await s.consumer.worker.drain();
    await outboxEmpty(s);

    expect(recorder.refused()).toBe(12);
    const byStream = expectOncePerChangeInOrder(recorder.taken);
    for (const id of ids) {
      expect(byStream.get(`${id} inbound delivery`)?.at(-1)?.newValue).toBe('delivered');
      expect(byStream.get(`${id} inbound taxReporting`)?.at(-1)?.newValue).toBe('electronic');
      expect(byStream.get(`${id} inbound lifecycle`)?.at(-1)?.newValue).toBe('paid');
    }
    // The same events again change nothing: nothing new for the sink.
    const before = recorder.taken.length;
    for (const e of history)
      expect(await s.post({ ...e, eventId: `${e.eventId}-again` })).toBe(204);
    await s.consumer.worker.drain();
    await outboxEmpty(s);
    expect(recorder.taken.length).toBe(before);
  });

  it('keeps what a down sink has not taken across a restart, and hands it over after', async () => {
    let down = true;
    const recorder = recordingSink(() => down);
    const s = await startSandboxForTest({ sink: recorder.sink });
    const messageId = await s.sendInboundInvoice();
    await eventually(
      async () => (await s.view(messageId)).body.inbound?.deliveryStatus === 'delivered',
      'the consumer to deliver the invoice',
    );
    await eventually(
      async () => (await s.consumer.store.sinkOutbox.stats()).failing > 0,
      'the sink to refuse a notice',
    );
    const queued = (await s.consumer.store.sinkOutbox.stats()).pending;
    expect(recorder.taken).toEqual([]);
    // The operator sees the backlog and why: GET /admin/sink and the metrics.
    const admin = await fetch(`${s.consumer.url}/admin/sink?state=failing`, {
      headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
    });
    const backlog = (await admin.json()) as {
      pending: number;
      failing: number;
      items: { lastError: string; attempts: number; notice: StatusChangeNotice }[];
    };
    expect(backlog.pending).toBe(queued);
    expect(backlog.failing).toBeGreaterThan(0);
    expect(backlog.items[0]).toMatchObject({ lastError: 'ERP unavailable' });
    const metrics = await (await fetch(`${s.consumer.url}/metrics`)).text();
    expect(metrics).toMatch(/sink_outbox_notices\{state="pending"\} [1-9]/);
    expect(metrics).toMatch(/sink_deliveries_total\{outcome="failed"\} [1-9]/);

    await s.restartConsumer();
    expect((await s.consumer.store.sinkOutbox.stats()).pending).toBe(queued);
    down = false;
    await outboxEmpty(s);
    expect(recorder.taken.length).toBe(queued);
    expectOncePerChangeInOrder(recorder.taken);
    expect(
      recorder.taken.filter((n) => n.messageId === messageId && n.kind === 'delivery').at(-1)
        ?.newValue,
    ).toBe('delivered');
  });
});
