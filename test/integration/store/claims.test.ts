import { describe, expect, it } from 'vitest';
import { type DisposableStore, describeEachStore, useEmptyStore } from '../../support/stores.ts';

const NOW = 1_800_000_000_000;
let store: DisposableStore;

const request = (holder: string, now = NOW, leaseMs = 1000) => ({ holder, now, leaseMs });

describeEachStore('message claims', (kind) => {
  useEmptyStore(kind, (opened) => {
    store = opened;
  });

  describe('message claims', () => {
    it('one holder at a time; free again once released', async () => {
      const first = await store.claims.acquire('m-1', request('a'));
      expect(first).toMatchObject({ messageId: 'm-1', holder: 'a', leaseUntil: NOW + 1000 });
      expect(await store.claims.acquire('m-1', request('b'))).toBeUndefined();
      expect(await store.claims.acquire('m-2', request('b'))).toBeDefined();
      if (first === undefined) throw new Error('not acquired');
      await store.claims.release(first);
      expect(await store.claims.acquire('m-1', request('b'))).toMatchObject({ holder: 'b' });
    });

    it('a renewed claim holds past its first lease; an unrenewed one is taken over', async () => {
      const claim = await store.claims.acquire('m-1', request('a'));
      if (claim === undefined) throw new Error('not acquired');
      const renewed = await store.claims.renew(claim, { now: NOW + 900, leaseMs: 1000 });
      expect(renewed?.leaseUntil).toBe(NOW + 1900);
      expect(await store.claims.acquire('m-1', request('b', NOW + 1500))).toBeUndefined();
      const taken = await store.claims.acquire('m-1', request('b', NOW + 1901));
      expect(taken).toMatchObject({ holder: 'b' });
      expect(taken?.token).not.toBe(claim.token);
      // The old holder learns it lost the claim, and its release leaves the new holder's alone.
      expect(await store.claims.renew(claim, { now: NOW + 1902, leaseMs: 1000 })).toBeUndefined();
      await store.claims.release(claim);
      expect(await store.claims.get('m-1')).toEqual(taken);
    });

    it('lists live holders, and releases every claim of one at once', async () => {
      await store.claims.acquire('m-1', request('dead'));
      await store.claims.acquire('m-2', request('dead'));
      await store.claims.acquire('m-3', request('alive'));
      await store.claims.acquire('m-4', request('expired', NOW - 5000));
      expect((await store.claims.holders(NOW)).sort()).toEqual(['alive', 'dead']);
      expect(await store.claims.releaseHolder('dead')).toBe(2);
      expect(await store.claims.acquire('m-1', request('new'))).toBeDefined();
      expect(await store.claims.acquire('m-3', request('new'))).toBeUndefined();
    });
  });
});
