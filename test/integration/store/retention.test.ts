/**
 * Retention and listing on both stores (the RetentionStore and EventStore.list contracts in
 * src/consumer/store/retention.ts and events.ts): what each batch removes, what it must keep
 * (open events, the dedupe record, open messages and their statuses), and pages that start at
 * their cursor.
 */
import { expect, it } from 'vitest';
import type { ClaimedEvent, NewEvent, Settlement } from '../../../src/consumer/store/events.ts';
import type { MessageKey } from '../../../src/consumer/store/messages.ts';
import type { BatchBound } from '../../../src/consumer/store/retention.ts';
import { InvalidCursorError } from '../../../src/consumer/store/store.ts';
import { newEvent } from '../../support/sqlite.ts';
import { type DisposableStore, describeEachStore, useEmptyStore } from '../../support/stores.ts';

const DAY = 86_400_000;
const NOW = 1_800_000_000_000;
let store: DisposableStore;

/** Inserts `event`, claims it and ends its turn as `settlement` says. */
async function finish(event: NewEvent, settlement: Settlement = { state: 'done' }) {
  await store.events.insert(event);
  const [claimed] = await store.events.claimDue({
    now: NOW,
    limit: 1,
    leaseMs: 60_000,
    holder: 'test',
  });
  if (claimed?.eventId !== event.eventId) throw new Error(`could not claim ${event.eventId}`);
  await store.events.settle(claimed as ClaimedEvent, settlement, NOW);
}

/** Three rows a batch, and a budget no batch of this suite reaches (see the budget test). */
const BOUND: BatchBound = { limit: 3, budgetMs: 60_000 };

/** Every batch of a step, as the pruner repeats them; the total count. */
async function drain(batch: (bound: BatchBound) => Promise<{ count: number; more: boolean }>) {
  let total = 0;
  // Bounded: the suites here have a few dozen rows, so a step still answering `more` after
  // 1,000 batches is looping, not working.
  for (let batches = 1; ; batches++) {
    if (batches > 1000) throw new Error('a retention step answered `more` 1,000 times');
    const { count, more } = await batch(BOUND);
    total += count;
    if (!more) return total;
  }
}

const inbound = (messageId: string): MessageKey => ({ messageId, transfer: 'inbound' });

describeEachStore('retention', (kind) => {
  useEmptyStore(kind, (opened) => {
    store = opened;
  });

  it('drops the bodies of finished events before the cut-off, and only those', async () => {
    const old = [0, 1, 2, 3, 4].map((i) => newEvent({ receivedAt: NOW - 40 * DAY + i }));
    for (const event of old) await finish(event);
    const skipped = newEvent({ receivedAt: NOW - 40 * DAY + 10 });
    await finish(skipped, { state: 'skipped' });
    const dead = newEvent({ receivedAt: NOW - 40 * DAY + 11 });
    await finish(dead, { state: 'dead', error: 'boom' });
    const recent = newEvent({ receivedAt: NOW - DAY });
    await finish(recent);
    const pending = newEvent({ receivedAt: NOW - 40 * DAY + 12 });
    await store.events.insert(pending);

    expect(await drain((bound) => store.retention.dropBodies(NOW - 30 * DAY, bound))).toBe(6);
    const body = async (eventId: string) => (await store.events.get(eventId))?.body.length;
    for (const event of [...old, skipped]) expect(await body(event.eventId)).toBe(0);
    // A dead event waits for an operator, who may replay it; a pending one is still to come.
    expect(await body(dead.eventId)).toBeGreaterThan(0);
    expect(await body(pending.eventId)).toBeGreaterThan(0);
    expect(await body(recent.eventId)).toBeGreaterThan(0);

    // A replay needs the body: refused, with the reason.
    expect(await store.events.replay(old[0]?.eventId as string, NOW)).toBe('body_dropped');
    expect(await store.events.replay(dead.eventId, NOW)).toBe('replayed');
    // The next pass starts where this one stopped: nothing again, not a walk over history.
    expect(await store.retention.dropBodies(NOW - 30 * DAY, BOUND)).toMatchObject({
      count: 0,
      more: false,
    });
  });

  it('keeps no body at all once an event is done, when asked', async () => {
    const event = newEvent();
    await finish(event, { state: 'done', dropBody: true });
    expect((await store.events.get(event.eventId))?.body.length).toBe(0);
    expect((await store.events.get(event.eventId))?.state).toBe('done');
  });

  it('deletes finished events past the cut-off and still answers their eventIds as duplicates', async () => {
    const old = [0, 1, 2, 3].map((i) => newEvent({ receivedAt: NOW - 100 * DAY + i }));
    for (const event of old) await finish(event);
    const change = old[0] as NewEvent;
    await store.messages.recordStatusChange(
      {
        ...inbound(change.messageId),
        eventId: change.eventId,
        kind: 'delivery',
        formerValue: 'pendingdelivery',
        newValue: 'delivered',
        occurredAt: 1,
        properties: null,
        validationResults: null,
        outcome: 'applied',
      },
      NOW,
    );
    const dead = newEvent({ receivedAt: NOW - 100 * DAY + 5 });
    await finish(dead, { state: 'dead', error: 'boom' });
    const recent = newEvent({ receivedAt: NOW - 10 * DAY });
    await finish(recent);

    const prune = (bound: BatchBound) =>
      store.retention.pruneEvents(NOW - 90 * DAY, bound, { rememberSince: NOW - 200 * DAY });
    expect(await drain(prune)).toBe(4);
    for (const event of old) {
      expect(await store.events.get(event.eventId)).toBeUndefined();
      // The service redelivers it: a duplicate, never stored or handled again.
      expect(await store.events.insert(event)).toBe('duplicate');
      expect(await store.events.get(event.eventId)).toBeUndefined();
    }
    expect(await store.messages.statusChanges(inbound(change.messageId))).toEqual([]);
    expect((await store.events.get(dead.eventId))?.state).toBe('dead');
    expect((await store.events.get(recent.eventId))?.state).toBe('done');

    // Past the dedupe period the eventId is forgotten: the service cannot send it any more.
    expect(await drain((bound) => store.retention.forgetEventIds(NOW - 200 * DAY, bound))).toBe(0);
    expect(await store.events.insert(old[0] as NewEvent)).toBe('duplicate');
    expect(await drain((bound) => store.retention.forgetEventIds(NOW, bound))).toBe(4);
    expect(await store.events.insert(old[0] as NewEvent)).toBe('inserted');
  });

  it('does not remember an eventId already past the dedupe period', async () => {
    const ancient = newEvent({ receivedAt: NOW - 300 * DAY });
    await finish(ancient);
    const prune = (bound: BatchBound) =>
      store.retention.pruneEvents(NOW - 90 * DAY, bound, { rememberSince: NOW - 200 * DAY });
    expect(await drain(prune)).toBe(1);
    expect(await store.events.insert(ancient)).toBe('inserted');
  });

  it('deletes dead events of settled messages after the events period, and any after the dead one', async () => {
    /** A message side whose delivery status is `status`, acknowledged or not. */
    const message = async (messageId: string, status: string, acknowledged = false) => {
      await store.messages.recordSnapshot(
        { ...inbound(messageId), statuses: { delivery: status }, at: 1, source: 'fetch' },
        NOW - 300 * DAY,
      );
      if (acknowledged) {
        await store.messages.markAcknowledged(inbound(messageId), 'delivered', null, NOW);
      }
    };
    const dead = async (messageId: string, daysAgo: number) => {
      const event = newEvent({
        messageId,
        action: 'messageStatusChanged',
        receivedAt: NOW - daysAgo * DAY,
      });
      await finish(event, { state: 'dead', error: 'HTTP 503' });
      return event;
    };
    await message('acknowledged', 'pendingdelivery', true);
    await message('failed', 'failed');
    await message('open', 'pendingdelivery');
    const settledOld = await dead('acknowledged', 100);
    const finalOld = await dead('failed', 100);
    const settledRecent = await dead('acknowledged', 10);
    const openOld = await dead('open', 100);
    const unknownOld = await dead('never-recorded', 100);
    const openAncient = await dead('open', 190);
    await store.messages.recordStatusChange(
      {
        ...inbound('acknowledged'),
        eventId: settledOld.eventId,
        kind: 'delivery',
        formerValue: '',
        newValue: 'pendingdelivery',
        occurredAt: 1,
        properties: null,
        validationResults: null,
        outcome: 'applied',
      },
      NOW,
    );
    expect((await store.events.countOpen()).dead).toBe(6);

    const prune = (bound: BatchBound) =>
      store.retention.pruneDeadEvents({ settled: NOW - 90 * DAY, any: NOW - 180 * DAY }, bound, {
        rememberSince: NOW - 200 * DAY,
      });
    expect(await drain(prune)).toBe(3);
    for (const gone of [settledOld, finalOld, openAncient]) {
      expect(await store.events.get(gone.eventId)).toBeUndefined();
      // A redelivery is still a duplicate, never stored or handled again.
      expect(await store.events.insert(gone)).toBe('duplicate');
    }
    expect(await store.messages.statusChanges(inbound('acknowledged'))).toEqual([]);
    // Kept: a settled message's recent one, and an open or unknown message's until the dead
    // period; an operator may still replay them.
    for (const kept of [settledRecent, openOld, unknownOld]) {
      expect((await store.events.get(kept.eventId))?.state).toBe('dead');
    }
    expect((await store.events.countOpen()).dead).toBe(3);
    expect(await drain(prune)).toBe(0);
  });

  it('stops a batch once it has used its time budget, and says there is more', async () => {
    const old = Array.from({ length: 8 }, (_, i) => newEvent({ receivedAt: NOW - 100 * DAY + i }));
    for (const event of old) await finish(event);
    // Every look at the clock finds 100 ms gone: each row (each statement on PostgreSQL) is
    // as slow as a stalled disk.
    let ms = 0;
    const slow = kind.clockedRetention(store, () => (ms += 100));
    try {
      const bound = { limit: 8, budgetMs: 10 };
      const prune = () =>
        slow.pruneEvents(NOW - 90 * DAY, bound, { rememberSince: NOW - 200 * DAY });
      const first = await prune();
      // One row on SQLite, one statement of a quarter of the limit on PostgreSQL.
      expect(first.count).toBeGreaterThanOrEqual(1);
      expect(first.count).toBeLessThanOrEqual(bound.limit / 4);
      expect(first.more).toBe(true);
      expect(first.ms).toBeGreaterThanOrEqual(bound.budgetMs);
      let total = first.count;
      // Bounded, so a batch that answers `more` without deleting fails here instead of looping.
      for (let batch = prune(), batches = 1; ; batch = prune(), batches++) {
        expect(batches).toBeLessThanOrEqual(old.length);
        const { count, more } = await batch;
        expect(count).toBeLessThanOrEqual(bound.limit / 4);
        total += count;
        if (!more) break;
      }
      expect(total).toBe(old.length);
      for (const event of old) expect(await store.events.get(event.eventId)).toBeUndefined();
    } finally {
      await slow.close();
    }
  });

  it('deletes final messages that went quiet before the cut-off, and keeps open ones', async () => {
    const quiet = NOW - 500 * DAY;
    const delivered = ['m-1', 'm-2', 'm-3', 'm-4'];
    for (const messageId of delivered) {
      await store.messages.applyStatus(
        inbound(messageId),
        { kind: 'delivery', value: 'delivered', at: 1, source: 'change' },
        quiet,
      );
      await store.messages.markImported(inbound(messageId), `/documents/${messageId}`, quiet);
    }
    await store.messages.applyStatus(
      inbound('open'),
      { kind: 'delivery', value: 'pendingdelivery', at: 1, source: 'change' },
      quiet,
    );
    await store.messages.applyStatus(
      inbound('recent'),
      { kind: 'delivery', value: 'delivered', at: 1, source: 'change' },
      NOW - DAY,
    );

    const forgotten: unknown[] = [];
    const count = await drain(async (bound) => {
      const batch = await store.retention.pruneMessages(NOW - 400 * DAY, bound);
      forgotten.push(...batch.forgotten);
      return batch;
    });
    expect(count).toBe(4);
    expect(forgotten).toEqual(
      expect.arrayContaining(
        delivered.map((messageId) => ({
          ...inbound(messageId),
          importLocation: `/documents/${messageId}`,
        })),
      ),
    );
    for (const messageId of delivered) {
      expect(await store.messages.get(inbound(messageId))).toBeUndefined();
    }
    // Reconciliation still has to find the open one; the recent one may still change.
    expect((await store.messages.get(inbound('open')))?.deliveryStatus).toBe('pendingdelivery');
    expect((await store.messages.get(inbound('recent')))?.deliveryStatus).toBe('delivered');
  });

  it('lists newest first a page at a time, each page starting after the last', async () => {
    // Several events in one millisecond: the arrival order breaks the tie.
    const done = newEvent({ receivedAt: NOW - 10 });
    await finish(done);
    const events = Array.from({ length: 7 }, (_, i) =>
      newEvent({ receivedAt: NOW + Math.floor(i / 3) }),
    );
    for (const event of events) await store.events.insert(event);

    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; ; pages++) {
      const page = await store.events.list({ state: 'pending', limit: 3, after });
      seen.push(...page.items.map((event) => event.eventId));
      if (page.next === null) break;
      after = page.next;
      expect(pages).toBeLessThan(5);
    }
    expect(seen).toEqual(events.map((event) => event.eventId).reverse());
    const all = await store.events.list({ limit: 10 });
    expect(all.items.map((event) => event.eventId)).toEqual([...seen, done.eventId]);
    expect(all.next).toBeNull();
    await expect(store.events.list({ limit: 3, after: 'bm90IGEgY3Vyc29y' })).rejects.toThrow(
      InvalidCursorError,
    );
  });
});
