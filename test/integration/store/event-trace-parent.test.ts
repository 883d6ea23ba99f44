/**
 * The webhook request span's context kept with its event (migration 012, both stores): what
 * the insert is given comes back with the claimed event, so the worker's spans join the
 * request's trace; an event stored with tracing off, or before the migration, comes back with
 * none, and the worker starts a trace of its own for it. Retention dropping a body keeps it.
 */
import { expect, it } from 'vitest';
import type { Store } from '../../../src/consumer/store/store.ts';
import { newEvent } from '../../support/sqlite.ts';
import { type DisposableStore, describeEachStore, useEmptyStore } from '../../support/stores.ts';
import { describeUpgrade } from './old-schema.ts';

const NOW = 1_800_000_000_000;
const TRACE_PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

const claimAll = (store: Store, now = NOW) =>
  store.events.claimDue({ now, limit: 10, leaseMs: 1000, holder: 'worker' });

describeEachStore('the trace parent kept with an event', (kind) => {
  let store: DisposableStore;
  useEmptyStore(kind, (opened) => {
    store = opened;
  });

  it('comes back with the claimed event, and null when the insert had none', async () => {
    const traced = newEvent({ messageId: 'A', traceParent: TRACE_PARENT });
    const untraced = newEvent({ messageId: 'B' });
    await store.events.insert(traced);
    await store.events.insert(untraced);

    const claimed = await claimAll(store);
    expect(Object.fromEntries(claimed.map((e) => [e.eventId, e.traceParent]))).toEqual({
      [traced.eventId]: TRACE_PARENT,
      [untraced.eventId]: null,
    });
    expect((await store.events.get(traced.eventId))?.traceParent).toBe(TRACE_PARENT);
  });

  it('is not replaced by a duplicate carrying another one', async () => {
    const first = newEvent({ traceParent: TRACE_PARENT });
    await store.events.insert(first);
    const other = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(await store.events.insert({ ...first, traceParent: other })).toBe('duplicate');
    expect((await store.events.get(first.eventId))?.traceParent).toBe(TRACE_PARENT);
  });

  it('survives retention dropping the body', async () => {
    const event = newEvent({ traceParent: TRACE_PARENT });
    await store.events.insert(event);
    const [claimed] = await claimAll(store);
    if (claimed === undefined) throw new Error('nothing claimed');
    await store.events.settle(claimed, { state: 'done' }, NOW + 1);
    await store.retention.dropBodies(NOW + 10, { limit: 10, budgetMs: 60_000 });
    expect(await store.events.get(event.eventId)).toMatchObject({
      body: Buffer.alloc(0),
      traceParent: TRACE_PARENT,
    });
  });
});

/** An event an older version stored: no trace parent, claimed and handled as before. */
const old = newEvent({ messageId: 'old' });
const OLD_EVENT = `
  INSERT INTO events (event_id, action, transfer, message_id, party, occurred_at, test, body,
                      received_at, next_attempt_at, updated_at)
  VALUES (?, ?, 'inbound', ?, ?, ?, ?, ?, ?, ?, ?)`;
const OLD_VALUES = [
  old.eventId,
  old.action,
  old.messageId,
  old.party,
  old.occurredAt,
  false,
  Buffer.from('{}'),
  old.receivedAt,
  old.receivedAt,
  old.receivedAt,
];

async function expectUpgraded(store: Store) {
  const [claimed] = await claimAll(store);
  expect(claimed).toMatchObject({ eventId: old.eventId, traceParent: null });
  const fresh = newEvent({ traceParent: TRACE_PARENT });
  expect(await store.events.insert(fresh)).toBe('inserted');
  expect((await store.events.get(fresh.eventId))?.traceParent).toBe(TRACE_PARENT);
}

describeUpgrade('012', 'leaves older events without a trace parent and keeps new ones', {
  before: { sqlite: 11, postgres: 11 },
  rows: [[OLD_EVENT, OLD_VALUES]],
  check: expectUpgraded,
});
