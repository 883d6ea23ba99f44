import { afterEach, describe, expect, it } from 'vitest';
import { newEvent, openTempStore } from '../../support/sqlite.ts';

let store: Awaited<ReturnType<typeof openTempStore>> | undefined;
afterEach(async () => {
  await store?.dispose();
  store = undefined;
});

describe('the SQLite writer', () => {
  it('answers each call of one turn on its own, even one whose arguments cannot reach it', async () => {
    store = await openTempStore();
    const events = Array.from({ length: 20 }, () => newEvent());
    // A function cannot be copied to the writer thread: that call fails, its turn's others not.
    const uncopyable = { ...newEvent(), body: (() => {}) as unknown as Buffer };
    const answers = await Promise.allSettled([
      ...events.slice(0, 10).map((e) => store?.events.insert(e)),
      store.events.insert(uncopyable),
      ...events.slice(10).map((e) => store?.events.insert(e)),
    ]);
    expect(answers.filter((a) => a.status === 'fulfilled').map((a) => a.value)).toEqual(
      events.map(() => 'inserted'),
    );
    expect(answers[10]).toMatchObject({
      status: 'rejected',
      reason: { message: `Could not store event ${uncopyable.eventId}` },
    });
    for (const e of events) expect(await store.events.get(e.eventId)).toBeDefined();
  });

  it('does not settle after a write that could not reach it', async () => {
    store = await openTempStore();
    const event = newEvent();
    await store.events.insert(event);
    const [claimed] = await store.events.claimDue({
      now: Date.now(),
      limit: 1,
      leaseMs: 60_000,
      holder: 'test',
    });
    if (claimed === undefined) throw new Error('not claimed');
    const uncopyable = store.messages.recordSnapshot(
      { ...claimed, statuses: {}, at: 1, source: 'descriptor', documentNo: (() => {}) as never },
      1,
    );
    const settled = store.events.settle(claimed, { state: 'done' }, 2, [uncopyable]);
    await expect(uncopyable).rejects.toThrow(/could not be cloned/);
    await expect(settled).rejects.toThrow(/could not be cloned/);
    expect((await store.events.get(event.eventId))?.state).toBe('processing');
  });
});
