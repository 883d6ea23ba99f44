import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newEvent, openTempStore } from '../../../support/sqlite.ts';

const NOW = 1_800_000_000_000;
let store: ReturnType<typeof openTempStore>;

beforeEach(() => {
  store = openTempStore();
});
afterEach(async () => {
  await store.dispose();
});

describe('inbox claims', () => {
  it('claims due events oldest first, at most one per message', async () => {
    const a1 = newEvent({ messageId: 'A', receivedAt: 1 });
    const b1 = newEvent({ messageId: 'B', receivedAt: 2 });
    const a2 = newEvent({ messageId: 'A', receivedAt: 3 });
    for (const e of [a2, b1, a1]) await store.events.insert(e);

    const claimed = await store.events.claimDue({ now: NOW, limit: 10, leaseMs: 1000 });
    expect(claimed.map((e) => e.eventId)).toEqual([a1.eventId, b1.eventId]);
    expect(claimed.every((e) => e.state === 'processing' && e.attempts === 1)).toBe(true);
  });

  it('never claims an event of a message that has one in processing', async () => {
    const a1 = newEvent({ messageId: 'A', receivedAt: 1 });
    const a2 = newEvent({ messageId: 'A', receivedAt: 2 });
    await store.events.insert(a1);
    await store.events.insert(a2);
    await store.events.claimDue({ now: NOW, limit: 10, leaseMs: 1000 });
    expect(await store.events.claimDue({ now: NOW, limit: 10, leaseMs: 1000 })).toEqual([]);

    await store.events.settle(a1.eventId, { state: 'done' }, NOW);
    const next = await store.events.claimDue({ now: NOW, limit: 10, leaseMs: 1000 });
    expect(next.map((e) => e.eventId)).toEqual([a2.eventId]);
  });

  it('waits for next_attempt_at, and takes over a claim whose lease ended', async () => {
    const e = newEvent();
    await store.events.insert(e);
    await store.events.claimDue({ now: NOW, limit: 1, leaseMs: 1000 });
    await store.events.settle(
      e.eventId,
      { state: 'pending', nextAttemptAt: NOW + 5000, error: 'boom' },
      NOW,
    );
    expect(await store.events.claimDue({ now: NOW + 4999, limit: 1, leaseMs: 1000 })).toEqual([]);

    const [again] = await store.events.claimDue({ now: NOW + 5000, limit: 1, leaseMs: 1000 });
    expect(again).toMatchObject({ attempts: 2, lastError: 'boom', state: 'processing' });
    // The worker holding it dies: after the lease another claim gets it.
    expect(await store.events.claimDue({ now: NOW + 6000, limit: 1, leaseMs: 1000 })).toEqual([]);
    const [takenOver] = await store.events.claimDue({ now: NOW + 6001, limit: 1, leaseMs: 1000 });
    expect(takenOver?.attempts).toBe(3);
  });

  it('releases every claim at start-up after a crash', async () => {
    for (let i = 0; i < 3; i++) await store.events.insert(newEvent());
    await store.events.claimDue({ now: NOW, limit: 3, leaseMs: 60_000 });
    expect(await store.events.releaseClaims(NOW)).toBe(3);
    expect((await store.events.countByState()).pending).toBe(3);
  });

  it('replays dead, done and skipped events only', async () => {
    const dead = newEvent();
    const pending = newEvent();
    await store.events.insert(dead);
    await store.events.insert(pending);
    await store.events.claimDue({ now: NOW, limit: 1, leaseMs: 1000 });
    await store.events.settle(dead.eventId, { state: 'dead', error: 'HTTP 409' }, NOW);

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
    await store.events.settle(e.eventId, { state: 'done' }, NOW);
    expect((await store.events.get(e.eventId))?.state).toBe('pending');
  });
});
