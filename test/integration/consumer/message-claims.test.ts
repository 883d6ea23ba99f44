/**
 * Two handlers of one inbound message, interleaved step by step. Each has its own connection
 * to one SQLite file, as two processes would (a worker and a reconciliation, say), and both
 * talk to the provider over real HTTP. Time in the claims is a hand-moved clock, so every
 * step below decides the same way on every machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/consumer/api/index.ts';
import { ClaimLostError, holdClaim } from '../../../src/consumer/claims/held-claim.ts';
import type { Importer, ImportInput } from '../../../src/consumer/importer/index.ts';
import {
  openSqliteStore,
  type SqliteStore,
} from '../../../src/consumer/store/sqlite/sqlite-store.ts';
import { createInboundDelivery } from '../../../src/consumer/worker/inbound-delivery.ts';
import { startTestProvider, type TestProvider, TOKEN } from '../provider/helpers.ts';

const LEASE_MS = 300;
const logger = pino({ level: 'silent' });

let provider: TestProvider;
let dir: string;
let api: ApiClient;
let stores: SqliteStore[];
let now: number;

beforeEach(async () => {
  provider = await startTestProvider();
  dir = mkdtempSync(join(tmpdir(), 'claims-'));
  api = createApiClient({ baseUrl: provider.url, token: TOKEN });
  stores = [];
  for (let i = 0; i < 2; i++) stores.push(await openSqliteStore(join(dir, 'consumer.db')));
  now = 1_000_000;
});
afterEach(async () => {
  await api.close();
  for (const store of stores) await store.close();
  await provider.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An importer that holds every call until the test opens its gate. */
function gatedImporter() {
  const calls: ImportInput[] = [];
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const importer: Importer = {
    async import(input) {
      calls.push(input);
      await gate;
      return { status: 'imported', location: `erp:${input.messageId}` };
    },
  };
  return { importer, calls, open };
}

function handler(store: SqliteStore, importer: Importer, holder: string) {
  const delivery = createInboundDelivery({
    api,
    importer,
    messages: store.messages,
    events: store.events,
    logger,
    now: () => now,
    importTimeoutMs: 60_000,
  });
  return {
    acquire: (messageId: string) =>
      store.claims.acquire(messageId, { holder, now, leaseMs: LEASE_MS }),
    hold: (claim: Parameters<typeof holdClaim>[0]['claim']) =>
      holdClaim({ claims: store.claims, claim, leaseMs: LEASE_MS, now: () => now, logger }),
    deliver: (messageId: string, claim: Parameters<typeof delivery.deliver>[1]) =>
      delivery.deliver(messageId, claim, { by: holder }),
  };
}

const coreFetches = (messageId: string) =>
  provider.provider.callLog.list({ messageId }).filter((c) => c.path.endsWith('/documents/core'))
    .length;
const status = (messageId: string) =>
  provider.provider.model.messages.get(messageId).sides.inbound?.status;

describe('one message, two handlers', () => {
  it('the second waits while the first imports, then only acknowledges', async () => {
    const messageId = await provider.inbound();
    const gated = gatedImporter();
    const a = handler(stores[0] as SqliteStore, gated.importer, 'worker');
    const b = handler(stores[1] as SqliteStore, gated.importer, 'reconcile');

    // 1. A takes the claim; B cannot.
    const claimA = await a.acquire(messageId);
    if (claimA === undefined) throw new Error('A has no claim');
    expect(await b.acquire(messageId)).toBeUndefined();

    // 2. A works: its import is in progress (held at the gate).
    const heldA = a.hold(claimA);
    const delivering = a.deliver(messageId, heldA);
    // However loaded the machine, the import has started before the test goes on.
    await vi.waitFor(() => expect(gated.calls).toHaveLength(1), { timeout: 10_000, interval: 5 });

    // 3. Time passes beyond A's first lease; A renews while it works, so B still cannot.
    now += LEASE_MS - 50;
    await heldA.confirm();
    now += 200;
    expect(await b.acquire(messageId)).toBeUndefined();

    // 4. A's import ends: recorded, acknowledged, claim released.
    gated.open();
    expect(await delivering).toBe('imported');
    heldA.stop();
    await stores[0]?.claims.release(heldA.current());
    expect(status(messageId)).toBe('delivered');

    // 5. B's turn: it finds the import recorded and only acknowledges again.
    const claimB = await b.acquire(messageId);
    if (claimB === undefined) throw new Error('B has no claim');
    const heldB = b.hold(claimB);
    expect(await b.deliver(messageId, heldB)).toBe('acknowledged');
    heldB.stop();

    expect(gated.calls).toHaveLength(1);
    expect(gated.calls[0]?.previouslyAttempted).toBe(false);
    expect(coreFetches(messageId)).toBe(1);
  });

  it('a holder that lost its claim records its import but never acknowledges', async () => {
    const messageId = await provider.inbound();
    const gated = gatedImporter();
    const a = handler(stores[0] as SqliteStore, gated.importer, 'frozen');
    const b = handler(stores[1] as SqliteStore, gated.importer, 'reconcile');

    const claimA = await a.acquire(messageId);
    if (claimA === undefined) throw new Error('A has no claim');
    // A is frozen (a stopped process): nothing renews its claim. Its import is in progress.
    const heldA = a.hold(claimA);
    heldA.stop();
    const delivering = a.deliver(messageId, heldA);
    await vi.waitFor(() => expect(gated.calls).toHaveLength(1), { timeout: 10_000, interval: 5 });

    // Its lease ends and B takes the message over.
    now += LEASE_MS + 1;
    const claimB = await b.acquire(messageId);
    expect(claimB).toBeDefined();

    // A wakes up: its import completes and is recorded, but it stops before acknowledging.
    gated.open();
    await expect(delivering).rejects.toBeInstanceOf(ClaimLostError);
    expect(status(messageId)).toBe('pendingdelivery');
    expect(
      (await stores[1]?.messages.get({ messageId, transfer: 'inbound' }))?.importedAt,
    ).not.toBeNull();

    // B finds the record: it acknowledges without importing a second time.
    if (claimB === undefined) throw new Error('B has no claim');
    const heldB = b.hold(claimB);
    expect(await b.deliver(messageId, heldB)).toBe('acknowledged');
    heldB.stop();
    expect(gated.calls).toHaveLength(1);
    expect(status(messageId)).toBe('delivered');
  });
});
