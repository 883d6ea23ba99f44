/**
 * The status sink's contract as vitest tests (docs/status-sink.md#kit), for the bundled sinks
 * and a forker's own:
 *
 *   describeSinkContract({
 *     name: 'my-erp',
 *     createSink: () => createMySink(settings),   // a new instance: a new process
 *     target: { received: () => myErp.statusChanges(), outage, recover },
 *   });
 *
 * Each case runs the consumer and the service simulator for real (startSandbox) with the sink,
 * and reads back what the target (the ERP, the journal file) received:
 *   sink.once-in-order   status events shuffled and repeated: each change once, in order
 *   sink.redelivered     the same notice handed over twice (a crash between the sink's answer
 *                        and the outbox's record): the target holds it once
 *   sink.outage          the target down while changes happen: none lost once it is back
 *   sink.restart         the consumer restarted (a new sink instance) while the target is
 *                        down: the outbox resumes, each change once
 * A case whose target lacks what it needs (outage, recover) is skipped, saying so.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StatusSink } from '../../src/consumer/sink/define-sink.ts';
import type { StatusChangeNotice } from '../../src/consumer/store/status-notice.ts';
import type { WebhookEnvelope } from '../../src/protocol/index.ts';
import { seededRandom } from '../../src/provider/seeded-random.ts';
import { eventually, SANDBOX_PARTY, type Sandbox, startSandbox } from './sandbox.ts';

export interface SinkTarget {
  /** Every notice the target holds, in the order it took them. */
  received(): Promise<StatusChangeNotice[]>;
  /** From now on the target refuses (a 503, a full disk) until recover(). */
  outage?(): Promise<void> | void;
  recover?(): Promise<void> | void;
}

export interface SinkContractOptions {
  name: string;
  /** A new sink instance, as a new process would create it. */
  createSink(): Promise<StatusSink>;
  target: SinkTarget;
}

/** A sink whose instance can be swapped (a restart) while the consumer keeps one object. */
function swappable(first: StatusSink) {
  let current = first;
  const sink: StatusSink = {
    deliver: (notice) => current.deliver(notice),
    close: async () => current.close?.(),
  };
  return {
    sink,
    swap(next: StatusSink) {
      current = next;
    },
  };
}

const stream = (n: StatusChangeNotice) => `${n.messageId} ${n.transfer} ${n.kind}`;

/** Each id once; in each stream, each notice takes over from the one before it. */
export function expectOnceInOrder(
  notices: StatusChangeNotice[],
): Map<string, StatusChangeNotice[]> {
  expect(new Set(notices.map((n) => n.id)).size).toBe(notices.length);
  const byStream = new Map<string, StatusChangeNotice[]>();
  for (const n of notices) byStream.set(stream(n), [...(byStream.get(stream(n)) ?? []), n]);
  for (const list of byStream.values()) {
    for (let i = 1; i < list.length; i++) {
      expect(list[i]?.formerValue).toBe(list[i - 1]?.newValue);
    }
  }
  return byStream;
}

/** The inbound status events of `ids`, as the service made them. */
function statusHistory(sandbox: Sandbox, ids: string[]): WebhookEnvelope[] {
  return sandbox.published.filter(
    (e) =>
      ids.includes(e.messageId) &&
      e.party === SANDBOX_PARTY &&
      e.transfer === 'inbound' &&
      e.action.endsWith('StatusChanged'),
  );
}

/** Invoices delivered, tax reported and paid at the service; their events not yet sent. */
async function makeHistory(sandbox: Sandbox, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await sandbox.sendInboundInvoice());
  for (const id of ids) {
    await sandbox.api(`/messages/${id}/mark-as-delivered`, 'POST');
    await sandbox.admin('POST', `/messages/${id}/tax-report`, {
      jurisdiction: 'Croatia',
      status: 'electronic',
    });
    await sandbox.admin('POST', `/messages/${id}/payment`, {
      paidAmount: '1.00',
      paymentDate: '2026-11-20',
    });
  }
  return ids;
}

async function postShuffled(sandbox: Sandbox, events: WebhookEnvelope[], seed: number) {
  const next = seededRandom(seed);
  const all = [...events, ...events.filter(() => next() < 0.3)];
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [all[i], all[j]] = [all[j] as WebhookEnvelope, all[i] as WebhookEnvelope];
  }
  for (const e of all) expect(await sandbox.post(e)).toBe(204);
  await sandbox.consumer.worker.drain();
}

const drained = (sandbox: Sandbox) =>
  eventually(
    async () => (await sandbox.consumer.store.sinkOutbox.stats()).pending === 0,
    'the sink outbox to drain',
    20_000,
  );

/** What the target took of these messages, and that each ends at delivered, electronic, paid. */
async function expectComplete(target: SinkTarget, ids: string[]) {
  const taken = (await target.received()).filter((n) => ids.includes(n.messageId));
  const byStream = expectOnceInOrder(taken);
  for (const id of ids) {
    expect(byStream.get(`${id} inbound delivery`)?.at(-1)?.newValue).toBe('delivered');
    expect(byStream.get(`${id} inbound taxReporting`)?.at(-1)?.newValue).toBe('electronic');
    expect(byStream.get(`${id} inbound lifecycle`)?.at(-1)?.newValue).toBe('paid');
  }
  return taken;
}

export function describeSinkContract(options: SinkContractOptions): void {
  const { target } = options;
  describe(`status sink contract: ${options.name}`, () => {
    let sandbox: Sandbox | undefined;
    afterEach(async () => {
      await target.recover?.();
      await sandbox?.stop();
      sandbox = undefined;
    });

    it('sink.once-in-order', async () => {
      sandbox = await startSandbox({ webhooks: false, sink: await options.createSink() });
      const ids = await makeHistory(sandbox, 3);
      await postShuffled(sandbox, statusHistory(sandbox, ids), 29);
      await drained(sandbox);
      await expectComplete(target, ids);
    });

    it('sink.redelivered', async () => {
      const sink = await options.createSink();
      const notice: StatusChangeNotice = {
        id: `kit-redelivered-${Date.now()}`,
        messageId: `kit-${Date.now()}`,
        transfer: 'inbound',
        kind: 'lifecycle',
        formerValue: 'none',
        newValue: 'paid',
        occurredAt: new Date().toISOString(),
        source: 'event',
        properties: { paidAmount: '1.00' },
        validationResults: null,
      };
      await sink.deliver(notice);
      const again = await options.createSink();
      await again.deliver(notice);
      await sink.close?.();
      await again.close?.();
      expect((await target.received()).filter((n) => n.id === notice.id)).toHaveLength(1);
    });

    it('sink.outage', async (context) => {
      if (target.outage === undefined || target.recover === undefined) {
        context.skip('the target has no outage() and recover()');
      }
      sandbox = await startSandbox({ webhooks: false, sink: await options.createSink() });
      await target.outage?.();
      const ids = await makeHistory(sandbox, 2);
      await postShuffled(sandbox, statusHistory(sandbox, ids), 7);
      const s = sandbox;
      await eventually(
        async () => (await s.consumer.store.sinkOutbox.stats()).failing > 0,
        'the sink to refuse',
      );
      await target.recover?.();
      await drained(sandbox);
      await expectComplete(target, ids);
    });

    it('sink.restart', async (context) => {
      if (target.outage === undefined || target.recover === undefined) {
        context.skip('the target has no outage() and recover()');
      }
      const swap = swappable(await options.createSink());
      sandbox = await startSandbox({ webhooks: false, sink: swap.sink });
      await target.outage?.();
      const ids = await makeHistory(sandbox, 2);
      await postShuffled(sandbox, statusHistory(sandbox, ids), 42);
      const s = sandbox;
      await eventually(
        async () => (await s.consumer.store.sinkOutbox.stats()).failing > 0,
        'the sink to refuse',
      );
      await sandbox.stopConsumer();
      swap.swap(await options.createSink());
      await target.recover?.();
      await sandbox.restartConsumer();
      await drained(sandbox);
      await expectComplete(target, ids);
    });
  });
}
