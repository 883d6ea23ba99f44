import { describe, expect, it } from 'vitest';
import type { NewEvent, Settlement } from '../../../src/consumer/store/events.ts';
import { newEvent } from '../../support/sqlite.ts';
import { type DisposableStore, describeEachStore, useEmptyStore } from '../../support/stores.ts';

const NOW = 1_800_000_000_000;
let store: DisposableStore;

const claimDue = (limit: number, now = NOW, holder = 'worker-a', leaseMs = 1000) =>
  store.events.claimDue({ now, limit, leaseMs, holder });

describeEachStore('the inbox', (kind) => {
  useEmptyStore(kind, (opened) => {
    store = opened;
  });

  describe('the oldest open events (inbox_oldest_event_age_seconds)', () => {
    it('gives when the oldest pending event arrived and when the longest-held one was claimed', async () => {
      expect(await store.events.oldestOpen()).toEqual({ pending: null, processing: null });
      const held = newEvent({ messageId: 'A', receivedAt: 100 });
      const waiting = newEvent({ messageId: 'A', receivedAt: 200 });
      const later = newEvent({ messageId: 'B', receivedAt: 300 });
      for (const e of [held, waiting, later]) await store.events.insert(e);
      expect(await store.events.oldestOpen()).toEqual({ pending: 100, processing: null });

      // A and B claimed at NOW: A's second event waits behind the first's claim.
      const claimed = await claimDue(10, NOW);
      expect(claimed.map((e) => e.eventId).sort()).toEqual([held.eventId, later.eventId].sort());
      expect(await store.events.oldestOpen()).toEqual({ pending: 200, processing: NOW });

      const [first] = claimed;
      if (first !== undefined) await store.events.settle(first, { state: 'done' }, NOW + 1);
      const open = await store.events.oldestOpen();
      expect(open.processing).toBe(NOW);
    });
  });

  describe('inbox claims', () => {
    it('claims due events oldest first, at most one per message, with its message claim', async () => {
      const a1 = newEvent({ messageId: 'A', receivedAt: 1 });
      const b1 = newEvent({ messageId: 'B', receivedAt: 2 });
      const a2 = newEvent({ messageId: 'A', receivedAt: 3 });
      for (const e of [a1, b1, a2]) await store.events.insert(e);

      const claimed = await claimDue(10);
      expect(claimed.map((e) => e.eventId)).toEqual([a1.eventId, b1.eventId]);
      expect(claimed.every((e) => e.state === 'processing' && e.attempts === 1)).toBe(true);
      // Handed over whole, as the event now stands.
      expect(claimed[0]).toEqual({
        ...a1,
        state: 'processing',
        attempts: 1,
        nextAttemptAt: a1.receivedAt,
        lockedUntil: NOW + 1000,
        lastError: null,
        resolution: null,
        updatedAt: NOW,
        traceParent: null,
        claim: claimed[0]?.claim,
      });
      expect(claimed[0]?.claim).toMatchObject({ messageId: 'A', holder: 'worker-a' });
      expect(await store.claims.get('A')).toEqual(claimed[0]?.claim);
    });

    it('never claims an event of a message whose claim is held, by anyone', async () => {
      const a1 = newEvent({ messageId: 'A' });
      const a2 = newEvent({ messageId: 'A' });
      const b1 = newEvent({ messageId: 'B' });
      for (const e of [a1, a2, b1]) await store.events.insert(e);
      // A reconciliation holds B: the worker leaves B's event alone.
      const reconcileClaim = await store.claims.acquire('B', {
        holder: 'reconcile',
        now: NOW,
        leaseMs: 1000,
      });
      expect(reconcileClaim).toBeDefined();
      const claimed = await claimDue(10, NOW, 'worker-a');
      expect(claimed.map((e) => e.eventId)).toEqual([a1.eventId]);
      const [first] = claimed;
      if (first === undefined) throw new Error('nothing claimed');
      expect(await claimDue(10, NOW, 'worker-b')).toEqual([]);

      expect(await store.events.settle(first, { state: 'done' }, NOW)).toBe(true);
      expect(await store.claims.get('A')).toBeUndefined();
      const next = await claimDue(10, NOW, 'worker-b');
      expect(next.map((e) => e.eventId)).toEqual([a2.eventId]);
    });

    it('waits for next_attempt_at, and takes over an event whose claim ended', async () => {
      const e = newEvent();
      await store.events.insert(e);
      const [claimed] = await claimDue(1);
      if (claimed === undefined) throw new Error('nothing claimed');
      await store.events.settle(
        claimed,
        { state: 'pending', nextAttemptAt: NOW + 5000, error: 'boom' },
        NOW,
      );
      expect(await claimDue(1, NOW + 4999)).toEqual([]);

      const [again] = await claimDue(1, NOW + 5000);
      expect(again).toMatchObject({ attempts: 2, lastError: 'boom', state: 'processing' });
      // Its holder dies: once the lease (1000 ms) has ended, another holder takes it over.
      expect(await claimDue(1, NOW + 6000, 'worker-b')).toEqual([]);
      const [takenOver] = await claimDue(1, NOW + 6001, 'worker-b');
      expect(takenOver?.attempts).toBe(3);
      expect(takenOver?.claim.holder).toBe('worker-b');
    });

    it('a holder that lost its claim cannot settle: nothing is written', async () => {
      const e = newEvent();
      await store.events.insert(e);
      const [stale] = await claimDue(1, NOW, 'worker-a');
      if (stale === undefined) throw new Error('nothing claimed');
      const [current] = await claimDue(1, NOW + 2000, 'worker-b');
      if (current === undefined) throw new Error('not taken over');

      expect(await store.events.settle(stale, { state: 'done' }, NOW + 2001)).toBe(false);
      expect(await store.events.get(e.eventId)).toMatchObject({ state: 'processing' });
      expect(await store.claims.get(e.messageId)).toEqual(current.claim);
      expect(await store.events.settle(current, { state: 'done' }, NOW + 2002)).toBe(true);
      expect((await store.events.get(e.eventId))?.state).toBe('done');
    });

    it('settles after the handler writes it follows, and not at all when one of them fails', async () => {
      const [ok, failing] = [newEvent(), newEvent()];
      for (const e of [ok, failing]) await store.events.insert(e);
      const claimed = await claimDue(2);
      const [first, second] = claimed;
      if (first === undefined || second === undefined) throw new Error('not claimed');
      const change = (event: typeof first, kind: string) =>
        store.messages.recordStatusChange(
          {
            messageId: event.messageId,
            transfer: 'inbound',
            eventId: event.eventId,
            kind: kind as 'delivery',
            formerValue: 'a',
            newValue: 'b',
            occurredAt: 1,
            properties: null,
            validationResults: null,
            outcome: 'applied',
          },
          NOW,
        );
      // Asked for in one turn, as the worker does: a write, then the settlement after it.
      const written = change(first, 'delivery');
      const refused = change(second, 'no such kind');
      const settled = await Promise.allSettled([
        written,
        store.events.settle(first, { state: 'done' }, NOW, [written]),
        refused,
        store.events.settle(second, { state: 'done' }, NOW, [refused]),
      ]);
      expect(settled.map((s) => s.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'rejected',
        'rejected',
      ]);
      expect((await store.events.get(first.eventId))?.state).toBe('done');
      expect((await store.events.get(second.eventId))?.state).toBe('processing');
      expect(await store.claims.get(second.messageId)).toEqual(second.claim);
      expect(
        await store.messages.statusChanges({ messageId: first.messageId, transfer: 'inbound' }),
      ).toHaveLength(1);
    });

    it('claims whatever the backlog: a busy message with many due events blocks no other', async () => {
      for (let i = 0; i < 200; i++) await store.events.insert(newEvent({ messageId: 'busy' }));
      const other = newEvent({ messageId: 'other' });
      await store.events.insert(other);
      await claimDue(1);
      expect((await claimDue(1)).map((e) => e.eventId)).toEqual([other.eventId]);
    });

    it('replays dead, done and skipped events only', async () => {
      const dead = newEvent();
      const pending = newEvent();
      await store.events.insert(dead);
      await store.events.insert(pending);
      const [claimed] = await claimDue(1);
      if (claimed === undefined) throw new Error('nothing claimed');
      await store.events.settle(claimed, { state: 'dead', error: 'HTTP 409' }, NOW);

      expect(await store.events.replay(pending.eventId, NOW)).toBe('not_replayable');
      expect(await store.events.replay('nope', NOW)).toBe('not_found');
      expect(await store.events.replay(dead.eventId, NOW + 1)).toBe('replayed');
      expect(await store.events.get(dead.eventId)).toMatchObject({
        state: 'pending',
        attempts: 0,
        nextAttemptAt: NOW + 1,
        lastError: 'HTTP 409',
      });
    });

    it('ignores a settle for an event no longer in processing', async () => {
      const e = newEvent();
      await store.events.insert(e);
      const stored = await store.events.get(e.eventId);
      if (stored === undefined) throw new Error('not stored');
      const claim = { messageId: e.messageId, holder: 'h', token: 'never-taken', leaseUntil: NOW };
      expect(await store.events.settle({ ...stored, claim }, { state: 'done' }, NOW)).toBe(false);
      expect((await store.events.get(e.eventId))?.state).toBe('pending');
    });
  });

  // A dead event whose work another handler did (its message acknowledged by reconciliation,
  // say) is closed: it leaves the dead count, saying why, its lastError kept.
  describe('closing dead events', () => {
    /** Inserts `event`, claims it and ends its turn as `settlement` says. */
    const finish = async (event: NewEvent, settlement: Settlement) => {
      await store.events.insert(event);
      const [claimed] = await claimDue(1);
      if (claimed?.eventId !== event.eventId) throw new Error(`could not claim ${event.eventId}`);
      expect(await store.events.settle(claimed, settlement, NOW)).toBe(true);
    };
    const closure = (messageId: string) => ({
      messageId,
      transfer: 'inbound' as const,
      action: 'deliveryNotified',
      resolution:
        'closed: message acknowledged (delivered) by reconciliation at 2027-01-15T08:00:00.000Z',
      now: NOW + 5,
    });
    const deadNotified = (messageId: string, overrides: Partial<NewEvent> = {}) =>
      newEvent({ messageId, action: 'deliveryNotified', ...overrides });

    it("closes a message's dead events of that transfer and action, and nothing else", async () => {
      const dead = deadNotified('M');
      await finish(dead, { state: 'dead', error: 'ImportTimeoutError: ... <- Error: ERP down' });
      const alsoDead = deadNotified('M');
      await finish(alsoDead, { state: 'dead', error: 'HTTP 503' });
      // Dead too, but not what the acknowledgement settles: another action, another side,
      // another message.
      const statusEvent = deadNotified('M', { action: 'deliveryStatusChanged' });
      await finish(statusEvent, { state: 'dead', error: 'x' });
      const outbound = deadNotified('M', { transfer: 'outbound' });
      await finish(outbound, { state: 'dead', error: 'x' });
      const other = deadNotified('N');
      await finish(other, { state: 'dead', error: 'x' });
      // Not dead: left to the worker.
      const done = deadNotified('M');
      await finish(done, { state: 'done' });
      const pending = deadNotified('M');
      await store.events.insert(pending);
      expect((await store.events.countOpen()).dead).toBe(5);

      const closed = await store.events.closeDead(closure('M'));
      expect(closed.sort()).toEqual([dead.eventId, alsoDead.eventId].sort());
      expect(await store.events.get(dead.eventId)).toMatchObject({
        state: 'done',
        lastError: 'ImportTimeoutError: ... <- Error: ERP down',
        resolution: closure('M').resolution,
        updatedAt: NOW + 5,
      });
      expect(await store.events.countOpen()).toEqual({ pending: 1, processing: 0, dead: 3 });
      for (const untouched of [statusEvent, outbound, other]) {
        expect(await store.events.get(untouched.eventId)).toMatchObject({
          state: 'dead',
          resolution: null,
        });
      }
      expect(await store.events.get(done.eventId)).toMatchObject({ resolution: null });
      expect((await store.events.get(pending.eventId))?.state).toBe('pending');
      // Once closed, nothing more to close; the admin listing of done events shows why.
      expect(await store.events.closeDead(closure('M'))).toEqual([]);
      const { items } = await store.events.list({ state: 'done', limit: 10 });
      expect(items.find((e) => e.eventId === alsoDead.eventId)?.resolution).toBe(
        closure('M').resolution,
      );
    });

    it('keeps the resolution when retention drops the body, and forgets it on replay', async () => {
      const dead = deadNotified('M');
      await finish(dead, { state: 'dead', error: 'HTTP 503' });
      await store.events.closeDead(closure('M'));
      await store.retention.dropBodies(NOW + 10, { limit: 10, budgetMs: 60_000 });
      expect(await store.events.get(dead.eventId)).toMatchObject({
        state: 'done',
        lastError: 'HTTP 503',
        resolution: closure('M').resolution,
        body: Buffer.alloc(0),
      });

      const again = deadNotified('P');
      await finish(again, { state: 'dead', error: 'HTTP 503' });
      await store.events.closeDead(closure('P'));
      expect(await store.events.replay(again.eventId, NOW + 20)).toBe('replayed');
      expect(await store.events.get(again.eventId)).toMatchObject({
        state: 'pending',
        resolution: null,
      });
    });
  });

  // The inbox's key is (occurredAt, eventId) (migration 008 on SQLite, 004 on PostgreSQL); the
  // admin API still finds an event by its eventId alone.
  describe('dedupe and lookup by eventId', () => {
    /** Claims `event` (the only one due) and settles it as `settlement` says. */
    const handle = async (settlement: Parameters<typeof store.events.settle>[1]) => {
      const [claimed] = await claimDue(1);
      if (claimed === undefined) throw new Error('nothing claimed');
      expect(await store.events.settle(claimed, settlement, NOW)).toBe(true);
    };

    it('a redelivery is a duplicate whatever became of the first, and is stored once', async () => {
      const e = newEvent();
      const redelivered = { ...e, body: Buffer.from('{"again":true}'), receivedAt: NOW + 9 };
      expect(await store.events.insert(e)).toBe('inserted');
      expect(await store.events.insert(redelivered)).toBe('duplicate');
      await claimDue(1);
      expect(await store.events.insert(redelivered)).toBe('duplicate');
      await store.claims.releaseHolder('worker-a');
      await handle({ state: 'dead', error: 'HTTP 409' });
      expect(await store.events.insert(redelivered)).toBe('duplicate');
      expect(await store.events.replay(e.eventId, NOW)).toBe('replayed');
      await handle({ state: 'done', dropBody: true });
      expect(await store.events.insert(redelivered)).toBe('duplicate');

      const { items } = await store.events.list({ limit: 10 });
      expect(items.map((stored) => [stored.eventId, stored.state, stored.body.length])).toEqual([
        [e.eventId, 'done', 0],
      ]);
    });

    it('a finished event is a duplicate by its eventId alone, even sent with another occurredAt', async () => {
      const e = newEvent();
      await store.events.insert(e);
      await handle({ state: 'done' });
      const changed = { ...e, occurredAt: new Date(Date.parse(e.occurredAt) + 1).toISOString() };
      expect(await store.events.insert(changed)).toBe('duplicate');
      expect((await store.events.list({ limit: 10 })).items).toHaveLength(1);
    });

    it('finds an event by its eventId alone in every state, and answers replay accordingly', async () => {
      const e = newEvent();
      await store.events.insert(e);
      const stateOf = async () => (await store.events.get(e.eventId))?.state;
      expect(await stateOf()).toBe('pending');
      expect(await store.events.replay(e.eventId, NOW)).toBe('not_replayable');
      await claimDue(1);
      expect(await stateOf()).toBe('processing');
      expect(await store.events.replay(e.eventId, NOW)).toBe('not_replayable');
      await store.claims.releaseHolder('worker-a');
      await handle({ state: 'skipped' });
      expect(await stateOf()).toBe('skipped');
      expect(await store.events.replay(e.eventId, NOW)).toBe('replayed');
      expect(await stateOf()).toBe('pending');
      await handle({ state: 'done', dropBody: true });
      expect(await store.events.get(e.eventId)).toMatchObject({
        state: 'done',
        occurredAt: e.occurredAt,
      });
      expect(await store.events.replay(e.eventId, NOW)).toBe('body_dropped');
      expect(await store.events.get('evt-never-sent')).toBeUndefined();
    });
  });
});
