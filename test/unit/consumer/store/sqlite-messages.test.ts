import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTempStore } from '../../../support/sqlite.ts';

let store: ReturnType<typeof openTempStore>;
beforeEach(() => {
  store = openTempStore();
});
afterEach(async () => {
  await store.dispose();
});

const key = { messageId: 'm-1', transfer: 'inbound' as const };

describe('message statuses', () => {
  it('never applies a value whose change is older than the stored one', async () => {
    expect(
      await store.messages.applyStatus(key, { kind: 'delivery', value: 'delivered', at: 20 }, 1),
    ).toBe(true);
    expect(
      await store.messages.applyStatus(
        key,
        { kind: 'delivery', value: 'pendingdelivery', at: 10 },
        2,
      ),
    ).toBe(false);
    expect(await store.messages.get(key)).toMatchObject({
      deliveryStatus: 'delivered',
      deliveryAt: 20,
    });
    // Same millisecond: the store applies it; the status-event handler decides by formerValue.
    expect(
      await store.messages.applyStatus(key, { kind: 'delivery', value: 'parked', at: 20 }, 3),
    ).toBe(true);
  });

  it('keeps the three kinds and the two transfers apart', async () => {
    await store.messages.applyStatus(key, { kind: 'lifecycle', value: 'paid', at: 5 }, 1);
    await store.messages.applyStatus(key, { kind: 'taxReporting', value: 'electronic', at: 1 }, 1);
    await store.messages.applyStatus(
      { ...key, transfer: 'outbound' },
      { kind: 'delivery', value: 'delivered', at: 9 },
      1,
    );
    expect(await store.messages.get(key)).toMatchObject({
      deliveryStatus: null,
      taxReportingStatus: 'electronic',
      lifecycleStatus: 'paid',
    });
    expect((await store.messages.listSides('m-1')).map((s) => s.transfer)).toEqual([
      'inbound',
      'outbound',
    ]);
  });

  it('ends with the newest change whatever the order and duplication (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer(),
        async (times, duplicates, seed) => {
          const changes = times.map((at, i) => ({ at, value: `v${i}` }));
          const delivered = [
            ...changes,
            ...duplicates.map((d) => changes[d % changes.length] as { at: number; value: string }),
          ];
          const shuffled = fc.sample(
            fc.shuffledSubarray(delivered, { minLength: delivered.length }),
            {
              seed,
              numRuns: 1,
            },
          )[0] as typeof delivered;
          const messageKey = {
            messageId: `m-${seed}-${times.join('-')}`,
            transfer: 'inbound' as const,
          };
          for (const c of shuffled) {
            await store.messages.applyStatus(
              messageKey,
              { kind: 'delivery', value: c.value, at: c.at },
              0,
            );
          }
          const newest = changes.reduce((a, b) => (b.at > a.at ? b : a));
          expect((await store.messages.get(messageKey))?.deliveryStatus).toBe(newest.value);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('records import and acknowledgement without moving last_event_at', async () => {
    await store.messages.recordSnapshot(
      { ...key, documentNo: 'INV-1', statuses: { delivery: 'pendingdelivery' }, at: 100 },
      1000,
    );
    await store.messages.markImported(key, '/docs/inbound/m-1', 2000);
    await store.messages.markAcknowledged(key, 'delivered', null, 3000);
    expect(await store.messages.get(key)).toMatchObject({
      documentNo: 'INV-1',
      deliveryStatus: 'pendingdelivery',
      importedAt: 2000,
      importLocation: '/docs/inbound/m-1',
      acknowledgedAt: 3000,
      acknowledgement: 'delivered',
      lastEventAt: 1000,
    });
  });

  it('lists non-final messages silent since before a time', async () => {
    await store.messages.recordSnapshot(
      { ...key, statuses: { delivery: 'pendingdelivery' }, at: 1 },
      1000,
    );
    await store.messages.recordSnapshot(
      { messageId: 'm-2', transfer: 'inbound', statuses: { delivery: 'delivered' }, at: 1 },
      1000,
    );
    await store.messages.recordSnapshot(
      { messageId: 'm-3', transfer: 'inbound', statuses: {}, at: 1 },
      5000,
    );
    expect((await store.messages.listStale(2000, 10)).map((m) => m.messageId)).toEqual(['m-1']);
  });
});
