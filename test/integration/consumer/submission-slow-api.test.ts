/**
 * The submission loop (src/consumer/submit/submission-worker.ts) against a messaging API that
 * sits on some submits, on both stores: the simulator's `hang` fault takes the first three
 * submits, which the API client gives up at its deadline (API_DEADLINE_MS). Issue 37: before,
 * the loop submitted one invoice at a time, so every invoice stored after them waited for the
 * three deadlines in a row. Now each invoice holds a slot of its own: the others go out
 * meanwhile, and the three are looked up and submitted once each, as the outbox's rule says.
 */
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { createApiClient } from '../../../src/consumer/api/index.ts';
import {
  createSubmissionWorker,
  type SubmissionWorker,
} from '../../../src/consumer/submit/submission-worker.ts';
import { type RunningProvider, startProvider } from '../../../src/provider/provider.ts';
import { providerAdmin } from '../../support/provider-admin.ts';
import { eventually } from '../../support/sandbox.ts';
import { type DisposableStore, describeEachStore, useEmptyStore } from '../../support/stores.ts';
import { exampleInvoice } from '../../support/submissions.ts';

/** Short, so the test is; the bound it asserts is this. */
const DEADLINE_MS = 2_000;
const LOOKUP_DELAY_MS = 200;
const HANGING = 3;
const ORDINARY = 12;
const SUBMIT = '/transactions/submit-invoice';

let store: DisposableStore;
let provider: RunningProvider | undefined;
let worker: SubmissionWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  await provider?.close();
  worker = undefined;
  provider = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function add(invoiceNo: string): Promise<void> {
  const body = JSON.stringify(await exampleInvoice((provider as RunningProvider).url, invoiceNo));
  const { added } = await store.submissions.add(
    { invoiceNo, body, bodyHash: invoiceNo },
    Date.now(),
  );
  expect(added).toBe(true);
}

describeEachStore('the submission loop against an API that hangs on some submits', (kind) => {
  useEmptyStore(kind, (opened) => {
    store = opened;
  });

  it('submits every other invoice within one API deadline of being stored, and each hung one once after its lookup', async () => {
    const running = await startProvider({ logger: pino({ level: 'silent' }) });
    provider = running;
    const admin = providerAdmin(() => running.url);
    await admin('POST', '/faults', { mode: 'hang', count: HANGING, pathPrefix: SUBMIT });
    const api = createApiClient({
      baseUrl: running.url,
      token: 'sandbox-token',
      timeoutMs: DEADLINE_MS,
      deadlineMs: DEADLINE_MS,
    });
    const hung = Array.from({ length: HANGING }, (_, i) => `HUNG-${i + 1}`);
    for (const invoiceNo of hung) await add(invoiceNo);
    worker = createSubmissionWorker({
      submissions: store.submissions,
      api,
      logger: pino({ level: 'silent' }),
      now: Date.now,
      leaseMs: DEADLINE_MS + LOOKUP_DELAY_MS + 1_000,
      lookupDelayMs: LOOKUP_DELAY_MS,
    });
    worker.start();
    // All three submits at the service, hanging, before any other invoice is stored: the fault
    // takes the first three submits to arrive, which must be theirs.
    await eventually(
      async () => (await admin<{ items: unknown[] }>('GET', '/faults')).items.length === 0,
      'three submits hanging at the service',
    );

    // Stored over some 3 s, while the hanging submits run out their deadline.
    const ordinary = Array.from({ length: ORDINARY }, (_, i) => `ORD-${i + 1}`);
    for (const invoiceNo of ordinary) {
      await add(invoiceNo);
      worker.notify();
      await sleep(250);
    }
    const all = [...hung, ...ordinary];
    const settled = await eventually(
      async () => {
        const rows = await Promise.all(all.map((n) => store.submissions.get(n)));
        return rows.every((row) => row?.state === 'submitted') ? rows : undefined;
      },
      'every invoice submitted',
      20_000,
    );
    for (const row of settled) {
      if (row === undefined || !row.invoiceNo.startsWith('ORD-')) continue;
      expect((row.settledAt as number) - row.createdAt, row.invoiceNo).toBeLessThanOrEqual(
        DEADLINE_MS,
      );
      expect(row).toMatchObject({ attempts: 1, resolvedBy: 'reply' });
    }
    // The hung ones: cut at the deadline, looked up, found missing, submitted once more.
    for (const row of settled.filter((r) => r?.invoiceNo.startsWith('HUNG-'))) {
      expect(row).toMatchObject({ attempts: 2, resolvedBy: 'reply' });
    }
    // One message per invoice at the service; a lookup before each second submit.
    const calls = (await admin<{ items: { method: string; path: string }[] }>('GET', '/api-calls'))
      .items;
    expect(calls.filter((c) => c.method === 'POST' && c.path === SUBMIT)).toHaveLength(
      all.length + HANGING,
    );
    expect(calls.filter((c) => c.method === 'GET' && c.path === '/messages')).toHaveLength(HANGING);
    for (const invoiceNo of all) {
      const found = await api.listMessages({ transfer: 'outbound', documentNo: invoiceNo });
      expect(
        found.items.map((m) => m.documentNo),
        invoiceNo,
      ).toEqual([invoiceNo]);
    }
  }, 60_000);
});
