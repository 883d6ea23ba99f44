import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StatusSource } from '../../../src/consumer/store/messages.ts';
import type { StatusKind } from '../../../src/protocol/index.ts';
import { type DisposableStore, describeEachStore, useEmptyStore } from '../../support/stores.ts';

let store: DisposableStore;

const key = { messageId: 'm-1', transfer: 'inbound' as const };

describeEachStore('message statuses', (kind) => {
  useEmptyStore(kind, (opened) => {
    store = opened;
  });

  describe('message statuses', () => {
    const delivery = (value: string, at: number, source: StatusSource) =>
      store.messages.applyStatus(key, { kind: 'delivery', value, at, source }, 1);
    const stored = async () => {
      const record = await store.messages.get(key);
      return {
        value: record?.deliveryStatus,
        at: record?.deliveryAt,
        confirmed: record?.deliveryConfirmed,
      };
    };

    it('never stores a value older than the stored one, whatever its source', async () => {
      expect(await delivery('delivered', 20, 'change')).toBe(true);
      for (const source of ['change', 'descriptor', 'fetch'] as const) {
        expect(await delivery('pendingdelivery', 10, source)).toBe(false);
      }
      expect(await stored()).toEqual({ value: 'delivered', at: 20, confirmed: false });
    });

    it('at the same millisecond: a change replaces an unconfirmed value, a descriptor nothing', async () => {
      await delivery('delivered', 20, 'change');
      expect(await delivery('pendingdelivery', 20, 'descriptor')).toBe(false);
      expect(await delivery('parked', 20, 'change')).toBe(true);
      expect(await stored()).toEqual({ value: 'parked', at: 20, confirmed: false });
    });

    it('a fetched value is confirmed: only a newer change or another fetch replaces it', async () => {
      await delivery('delivered', 20, 'change');
      expect(await delivery('parked', 20, 'fetch')).toBe(true);
      expect(await stored()).toEqual({ value: 'parked', at: 20, confirmed: true });
      expect(await delivery('delivered', 20, 'change')).toBe(false);
      expect(await delivery('delivered', 20, 'descriptor')).toBe(false);
      expect(await delivery('failed', 20, 'fetch')).toBe(true);
      expect(await delivery('pendingdelivery', 21, 'change')).toBe(true);
      expect(await stored()).toEqual({ value: 'pendingdelivery', at: 21, confirmed: false });
    });

    it('finds the transitions of one kind recorded at one millisecond', async () => {
      const change = (eventId: string, kind: StatusKind, occurredAt: number) =>
        store.messages.recordStatusChange(
          {
            ...key,
            eventId,
            kind,
            formerValue: 'a',
            newValue: 'b',
            occurredAt,
            properties: null,
            validationResults: null,
            outcome: 'applied',
          },
          1,
        );
      await change('e1', 'delivery', 20);
      await change('e2', 'delivery', 20);
      await change('e3', 'delivery', 21);
      await change('e4', 'lifecycle', 20);
      const found = await store.messages.transitionsAt(key, 'delivery', 20);
      expect(found.map((t) => t.eventId).sort()).toEqual(['e1', 'e2']);
      expect(found[0]).toMatchObject({ formerValue: 'a', newValue: 'b' });
    });

    it('keeps the three kinds and the two transfers apart', async () => {
      await store.messages.applyStatus(
        key,
        { kind: 'lifecycle', value: 'paid', at: 5, source: 'change' },
        1,
      );
      await store.messages.applyStatus(
        key,
        { kind: 'taxReporting', value: 'electronic', at: 1, source: 'change' },
        1,
      );
      await store.messages.applyStatus(
        { ...key, transfer: 'outbound' },
        { kind: 'delivery', value: 'delivered', at: 9, source: 'change' },
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
              ...duplicates.map(
                (d) => changes[d % changes.length] as { at: number; value: string },
              ),
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
                { kind: 'delivery', value: c.value, at: c.at, source: 'change' },
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
        {
          ...key,
          documentNo: 'INV-1',
          statuses: { delivery: 'pendingdelivery' },
          at: 100,
          source: 'descriptor',
        },
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

    it('counts import attempts and keeps the last transient error until an import succeeds', async () => {
      expect(await store.messages.get(key)).toBeUndefined();
      await store.messages.markImportStarted(key, 1000);
      await store.messages.markImportFailed(
        key,
        'ImportTimeoutError: the import of message m-1 did not end within 500 ms <- Error: ERP down',
        1100,
      );
      expect(await store.messages.get(key)).toMatchObject({
        importStartedAt: 1000,
        importAttempts: 1,
        importError:
          'ImportTimeoutError: the import of message m-1 did not end within 500 ms <- Error: ERP down',
        importedAt: null,
        importLocation: null,
        acknowledgement: null,
      });
      await store.messages.markImportStarted(key, 2000);
      await store.messages.markImportFailed(key, 'Error: ERP answered 502', 2100);
      expect(await store.messages.get(key)).toMatchObject({
        importStartedAt: 1000,
        importAttempts: 2,
        importError: 'Error: ERP answered 502',
      });
      await store.messages.markImportStarted(key, 3000);
      await store.messages.markImported(key, 'erp:INV-2026-0042', 3100);
      expect(await store.messages.get(key)).toMatchObject({
        importAttempts: 3,
        importError: null,
        importedAt: 3100,
        importLocation: 'erp:INV-2026-0042',
      });
      // A late failure (a holder that lost its claim while its import ran on) is not kept
      // beside the recorded import.
      await store.messages.markImportFailed(key, 'Error: aborted', 3200);
      expect((await store.messages.get(key))?.importError).toBeNull();
    });

    it('records a rejection: acknowledged as failed, with the reason', async () => {
      await store.messages.markImportStarted(key, 1000);
      await store.messages.markAcknowledged(key, 'failed', 'unknown buyer reference', 2000);
      expect(await store.messages.get(key)).toMatchObject({
        importAttempts: 1,
        importedAt: null,
        acknowledgedAt: 2000,
        acknowledgement: 'failed',
        failureReason: 'unknown buyer reference',
      });
    });

    it('lists non-final messages silent since before a time', async () => {
      await store.messages.recordSnapshot(
        { ...key, statuses: { delivery: 'pendingdelivery' }, at: 1, source: 'descriptor' },
        1000,
      );
      await store.messages.recordSnapshot(
        {
          messageId: 'm-2',
          transfer: 'inbound',
          statuses: { delivery: 'delivered' },
          at: 1,
          source: 'descriptor',
        },
        1000,
      );
      await store.messages.recordSnapshot(
        { messageId: 'm-3', transfer: 'inbound', statuses: {}, at: 1, source: 'descriptor' },
        5000,
      );
      expect((await store.messages.listStale(2000, 10)).map((m) => m.messageId)).toEqual(['m-1']);
    });
  });
});
