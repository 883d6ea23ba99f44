/**
 * The status sink's outbox on both stores (SinkOutboxStore in src/consumer/store/sink-outbox.ts,
 * StatusWrite.notice and MessageSnapshot.notices in messages.ts): a notice is queued with the
 * status write that stored its value and only then, once per id, and handed out one stream
 * (message side and kind) at a time, in order, a failing head holding back its own stream only.
 */
import { describe, expect, it } from 'vitest';
import type { MessageKey, StatusSource } from '../../../src/consumer/store/messages.ts';
import type { StatusChangeNotice } from '../../../src/consumer/store/status-notice.ts';
import type { StatusKind } from '../../../src/protocol/index.ts';
import { type DisposableStore, describeEachStore, useEmptyStore } from '../../support/stores.ts';

const NOW = 1_800_000_000_000;
const LEASE = 30_000;
const key: MessageKey = { messageId: 'm-1', transfer: 'inbound' };

/** A notice of `key`'s (or another side's) `kind` changing to `newValue`. */
function notice(
  id: string,
  newValue: string,
  options: { kind?: StatusKind; side?: MessageKey; formerValue?: string | null } = {},
): StatusChangeNotice {
  const side = options.side ?? key;
  return {
    id,
    messageId: side.messageId,
    transfer: side.transfer,
    kind: options.kind ?? 'delivery',
    formerValue: options.formerValue ?? null,
    newValue,
    occurredAt: new Date(NOW).toISOString(),
    source: 'event',
    properties: { errorCode: 'E1' },
    validationResults: null,
  };
}

let store: DisposableStore;

/** Stores `value` for the notice's side and kind at `at`, queuing the notice if stored. */
const write = (n: StatusChangeNotice, at: number, source: StatusSource = 'change') =>
  store.messages.applyStatus(
    { messageId: n.messageId, transfer: n.transfer },
    { kind: n.kind, value: n.newValue, at, source, notice: n },
    NOW,
  );

const ids = (rows: { notice: { id: string } }[]) => rows.map((row) => row.notice.id);

describeEachStore('status sink outbox', (kind) => {
  useEmptyStore(kind, (opened) => {
    store = opened;
  });

  describe('queuing', () => {
    it('queues a notice with a stored write, and none with a refused one', async () => {
      expect(await write(notice('n-1', 'delivered'), 20)).toBe(true);
      // Older than the stored value: refused, so nothing to tell.
      expect(await write(notice('n-0', 'pendingdelivery'), 10)).toBe(false);
      const rows = await store.sinkOutbox.list({ limit: 10 });
      expect(rows).toEqual([
        {
          seq: expect.any(Number),
          notice: notice('n-1', 'delivered'),
          createdAt: NOW,
          attempts: 0,
          nextAttemptAt: NOW,
          deliveredAt: null,
          lastError: null,
          // No tracing in this test: no context to keep (test/integration/tracing says more).
          traceParent: null,
        },
      ]);
    });

    it('queues a write without a notice as nothing', async () => {
      await store.messages.applyStatus(
        key,
        { kind: 'delivery', value: 'delivered', at: 1, source: 'change' },
        NOW,
      );
      expect(await store.sinkOutbox.list({ limit: 10 })).toEqual([]);
    });

    it('queues a notice id once, however often it is written', async () => {
      const n = notice('n-1', 'delivered');
      expect(await write(n, 20)).toBe(true);
      // The same change again (a fetch confirming it): stored, but its notice is queued already.
      expect(await write(n, 20, 'fetch')).toBe(true);
      expect(ids(await store.sinkOutbox.list({ limit: 10 }))).toEqual(['n-1']);
    });

    it('recordSnapshot queues the notice of each kind whose value it stored', async () => {
      await write(notice('tax-new', 'reported', { kind: 'taxReporting' }), 50);
      await store.messages.recordSnapshot(
        {
          ...key,
          statuses: { delivery: 'delivered', taxReporting: 'pending', lifecycle: 'paid' },
          at: 30,
          source: 'fetch',
          notices: {
            delivery: notice('snap-delivery', 'delivered'),
            // Refused: the stored taxReporting value is newer.
            taxReporting: notice('snap-tax', 'pending', { kind: 'taxReporting' }),
            lifecycle: notice('snap-lifecycle', 'paid', { kind: 'lifecycle' }),
          },
        },
        NOW,
      );
      expect(ids(await store.sinkOutbox.list({ limit: 10 })).sort()).toEqual([
        'snap-delivery',
        'snap-lifecycle',
        'tax-new',
      ]);
      const record = await store.messages.get(key);
      expect(record?.taxReportingStatus).toBe('reported');
    });
  });

  describe('claiming and delivering', () => {
    const other: MessageKey = { messageId: 'm-2', transfer: 'inbound' };

    it('hands out only the head of each stream, oldest first, and never a leased one', async () => {
      await write(notice('a-1', 'pendingdelivery'), 1);
      await write(notice('b-1', 'pendingdelivery', { side: other }), 1);
      await write(notice('a-2', 'delivered'), 2);
      // Another kind of the same side is another stream.
      await write(notice('a-life', 'paid', { kind: 'lifecycle' }), 3);

      const claimed = await store.sinkOutbox.claimDue(NOW, 10, LEASE);
      expect(ids(claimed)).toEqual(['a-1', 'b-1', 'a-life']);
      const seqs = claimed.map((row) => row.seq);
      expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
      // Leased: not again, not even in part, until the lease ends.
      expect(await store.sinkOutbox.claimDue(NOW + 1, 10, LEASE)).toEqual([]);
      expect(await store.sinkOutbox.claimDue(NOW + LEASE, 10, LEASE)).toEqual([]);
      // A lease that ended hands the same heads out again (their holder died).
      expect(ids(await store.sinkOutbox.claimDue(NOW + LEASE + 1, 10, LEASE))).toEqual([
        'a-1',
        'b-1',
        'a-life',
      ]);
    });

    it('hands out at most `limit`, oldest first', async () => {
      for (let i = 0; i < 5; i++) {
        await write(notice(`n-${i}`, 'delivered', { side: { ...key, messageId: `m-${i}` } }), 1);
      }
      expect(ids(await store.sinkOutbox.claimDue(NOW, 2, LEASE))).toEqual(['n-0', 'n-1']);
      expect(ids(await store.sinkOutbox.claimDue(NOW, 10, LEASE))).toEqual(['n-2', 'n-3', 'n-4']);
    });

    it('lets the next notice of a stream out once its head is delivered', async () => {
      await write(notice('a-1', 'pendingdelivery'), 1);
      await write(notice('a-2', 'delivered'), 2);
      const [head] = await store.sinkOutbox.claimDue(NOW, 10, LEASE);
      expect(head?.notice.id).toBe('a-1');
      await store.sinkOutbox.markDelivered([head?.seq as number], NOW + 5);
      const [next] = await store.sinkOutbox.claimDue(NOW + 6, 10, LEASE);
      expect(next?.notice.id).toBe('a-2');
      const [, delivered] = await store.sinkOutbox.list({ limit: 2 });
      expect(delivered).toMatchObject({ notice: { id: 'a-1' }, deliveredAt: NOW + 5 });
      expect(await store.sinkOutbox.claimDue(NOW + 7, 10, LEASE)).toEqual([]);
    });

    it('a failing head holds back its stream, not the others, and is due again later', async () => {
      await write(notice('a-1', 'pendingdelivery'), 1);
      await write(notice('a-2', 'delivered'), 2);
      await write(notice('b-1', 'pendingdelivery', { side: other }), 1);
      const claimed = await store.sinkOutbox.claimDue(NOW, 10, LEASE);
      expect(ids(claimed)).toEqual(['a-1', 'b-1']);
      const [a1, b1] = claimed as [(typeof claimed)[0], (typeof claimed)[0]];
      await store.sinkOutbox.markFailed(a1.seq, 'sink answered 500', NOW + 60_000, NOW + 1);
      await store.sinkOutbox.markDelivered([b1.seq], NOW + 1);
      await write(notice('b-2', 'delivered', { side: other }), 2);

      // a-1 waits for its next attempt, and a-2 behind it; b's stream goes on.
      const [b2] = await store.sinkOutbox.claimDue(NOW + 2, 10, LEASE);
      expect(b2?.notice.id).toBe('b-2');
      await store.sinkOutbox.markDelivered([b2?.seq as number], NOW + 3);
      expect(await store.sinkOutbox.claimDue(NOW + 59_999, 10, LEASE)).toEqual([]);
      const [again] = await store.sinkOutbox.claimDue(NOW + 60_000, 10, LEASE);
      expect(again).toMatchObject({
        notice: { id: 'a-1' },
        attempts: 1,
        nextAttemptAt: NOW + 60_000,
        lastError: 'sink answered 500',
        deliveredAt: null,
      });
    });

    it('keeps a bounded part of a long error', async () => {
      await write(notice('a-1', 'delivered'), 1);
      const [head] = await store.sinkOutbox.claimDue(NOW, 10, LEASE);
      await store.sinkOutbox.markFailed(head?.seq as number, 'x'.repeat(100_000), NOW, NOW);
      const [row] = await store.sinkOutbox.list({ limit: 1 });
      expect(row?.lastError?.length).toBeGreaterThan(100);
      expect(row?.lastError?.length).toBeLessThanOrEqual(2000);
    });

    it('counts and lists the pending and the failing, newest first', async () => {
      expect(await store.sinkOutbox.stats()).toEqual({
        pending: 0,
        failing: 0,
        oldestPendingAt: null,
      });
      await write(notice('a-1', 'pendingdelivery'), 1);
      await write(notice('b-1', 'pendingdelivery', { side: other }), 1);
      await store.messages.applyStatus(
        other,
        {
          kind: 'delivery',
          value: 'delivered',
          at: 2,
          source: 'change',
          notice: notice('b-2', 'delivered', { side: other }),
        },
        NOW + 10,
      );
      await write(notice('c-1', 'delivered', { side: { ...key, messageId: 'm-3' } }), 1);
      const [a1, b1, c1] = await store.sinkOutbox.claimDue(NOW + 10, 10, LEASE);
      await store.sinkOutbox.markDelivered([a1?.seq as number], NOW + 11);
      await store.sinkOutbox.markFailed(b1?.seq as number, 'down', NOW + 99, NOW + 11);
      await store.sinkOutbox.markFailed(c1?.seq as number, 'down', NOW + 99, NOW + 11);

      expect(await store.sinkOutbox.stats()).toEqual({
        pending: 3,
        failing: 2,
        oldestPendingAt: NOW,
      });
      expect(ids(await store.sinkOutbox.list({ limit: 10 }))).toEqual(['c-1', 'b-2', 'b-1', 'a-1']);
      expect(ids(await store.sinkOutbox.list({ limit: 2 }))).toEqual(['c-1', 'b-2']);
      expect(ids(await store.sinkOutbox.list({ limit: 10, state: 'pending' }))).toEqual([
        'c-1',
        'b-2',
        'b-1',
      ]);
      expect(ids(await store.sinkOutbox.list({ limit: 10, state: 'failing' }))).toEqual([
        'c-1',
        'b-1',
      ]);
    });
  });

  describe('pruning', () => {
    /** Queues `id`, claims and, when `at` is given, delivers it then. */
    async function queued(id: string, messageId: string, deliveredAt?: number) {
      await write(notice(id, 'delivered', { side: { ...key, messageId } }), 1);
      const [row] = await store.sinkOutbox.claimDue(NOW, 1, 1);
      if (deliveredAt !== undefined)
        await store.sinkOutbox.markDelivered([row?.seq as number], deliveredAt);
      else await store.sinkOutbox.markFailed(row?.seq as number, 'down', NOW + 1e9, NOW);
    }

    it('pruneDelivered deletes delivered notices before the cut-off, never an undelivered one', async () => {
      await queued('old-1', 'm-a', NOW + 1);
      await queued('old-2', 'm-b', NOW + 2);
      await queued('recent', 'm-c', NOW + 100);
      await queued('stuck', 'm-d');
      expect(await store.sinkOutbox.pruneDelivered(NOW + 50, 1)).toBe(1);
      expect(await store.sinkOutbox.pruneDelivered(NOW + 50, 10)).toBe(1);
      expect(await store.sinkOutbox.pruneDelivered(NOW + 50, 10)).toBe(0);
      expect(await store.sinkOutbox.pruneDelivered(NOW + 1e12, 10)).toBe(1);
      expect(ids(await store.sinkOutbox.list({ limit: 10 }))).toEqual(['stuck']);
    });

    it('retention deletes delivered notices in batches, never an undelivered one', async () => {
      await queued('old-1', 'm-a', NOW + 1);
      await queued('old-2', 'm-b', NOW + 2);
      await queued('recent', 'm-c', NOW + 100);
      await queued('stuck', 'm-d');
      const bound = { limit: 1, budgetMs: 60_000 };
      expect(await store.retention.pruneNotices(NOW + 50, bound)).toMatchObject({
        count: 1,
        more: true,
      });
      expect(
        await store.retention.pruneNotices(NOW + 50, { limit: 10, budgetMs: 60_000 }),
      ).toMatchObject({ count: 1, more: false });
      expect(ids(await store.sinkOutbox.list({ limit: 10 }))).toEqual(['stuck', 'recent']);
      await store.retention.pruneNotices(NOW + 1e12, { limit: 10, budgetMs: 60_000 });
      expect(ids(await store.sinkOutbox.list({ limit: 10 }))).toEqual(['stuck']);
    });
  });

  // PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: each writer's IMMEDIATE transaction.
  it('two processes claiming at once never hand out the same notice', async () => {
    const another = await kind.openAnother(store);
    try {
      for (let i = 0; i < 200; i++) {
        await write(notice(`n-${i}`, 'delivered', { side: { ...key, messageId: `m-${i}` } }), 1);
      }
      const seen = new Set<number>();
      for (let round = 0; round < 20; round++) {
        const batches = await Promise.all(
          [store, another, store, another].map((s) => s.sinkOutbox.claimDue(NOW, 7, LEASE)),
        );
        for (const row of batches.flat()) {
          expect(seen.has(row.seq)).toBe(false);
          seen.add(row.seq);
        }
      }
      expect(seen.size).toBe(200);
    } finally {
      await another.dispose();
    }
  });
});
