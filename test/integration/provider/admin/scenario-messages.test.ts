/** The scenario admin API's message list and outbound submission, which the console uses. */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createManualClock } from '../../../../src/provider/clock.ts';
import { SANDBOX, SUPPLIER, startTestProvider, type TestProvider } from '../helpers.ts';

let provider: TestProvider;
beforeEach(async () => {
  provider = await startTestProvider();
});
afterEach(async () => {
  await provider.close();
});

const example = async () =>
  (await fetch(`${provider.url}/console/example-invoice.json`)).json() as Promise<{
    invoice: Record<string, unknown>;
  }>;

it('submits an outbound invoice as the sandbox participant, validated as submit-invoice is', async () => {
  const body = await example();
  const res = await provider.admin('/messages/outbound', body);
  expect(res.status).toBe(201);
  const { messageId, status } = (await res.json()) as { messageId: string; status: string };
  expect(status).toBe('received');
  provider.settle();
  const message = provider.provider.model.messages.get(messageId);
  expect(message.origin.identifier).toBe(SANDBOX);
  expect(message.destination.identifier).toBe(SUPPLIER);
  expect(message.validationStatus).toBe('approved');

  const open = await provider.admin('/messages/outbound?more=true', body);
  expect(await open.json()).toMatchObject({ status: 'notset' });
  const broken = await provider.admin('/messages/outbound', { ...body, invoice: {} });
  provider.settle();
  const rejected = provider.provider.model.messages.get(
    ((await broken.json()) as { messageId: string }).messageId,
  );
  expect(rejected.validationStatus).toBe('rejected');
  expect((await provider.admin('/messages/outbound', [1, 2])).status).toBe(400);
  expect((await provider.admin('/messages/outbound?more=maybe', body)).status).toBe(400);
});

it('lists messages newest first with each side’s three statuses', async () => {
  const first = await provider.inbound();
  const second = await provider.inbound();
  const res = await fetch(`${provider.url}/admin/messages?limit=1`);
  const { items } = (await res.json()) as { items: { id: string }[] };
  expect(items.map((m) => m.id)).toEqual([second]);
  const all = (await (await fetch(`${provider.url}/admin/messages`)).json()) as {
    items: unknown[];
  };
  expect(all.items).toEqual([
    expect.objectContaining({ id: second }),
    expect.objectContaining({
      id: first,
      documentNo: 'INV-20260105-090000.000-00001',
      validationStatus: 'approved',
      validationResultCount: 0,
      sides: {
        outbound: {
          status: 'pendingdelivery',
          taxReportingStatus: 'none',
          lifecycleStatus: 'none',
        },
        inbound: { status: 'pendingdelivery', taxReportingStatus: 'none', lifecycleStatus: 'none' },
      },
    }),
  ]);
  expect((await fetch(`${provider.url}/admin/messages?limit=0`)).status).toBe(400);
});

it('numbers demo invoices so that a restarted sandbox repeats none of the last run’s', async () => {
  const documentNos = async (sandbox: TestProvider, count: number) => {
    const numbers: string[] = [];
    for (let i = 0; i < count; i++) {
      numbers.push(sandbox.provider.model.messages.get(await sandbox.inbound()).documentNo);
    }
    return numbers;
  };
  const first = await documentNos(provider, 3);
  provider.clock.advance(2_500);
  const restartedAt = provider.clock.now();
  await provider.close();
  provider = await startTestProvider({ clock: createManualClock(restartedAt) });
  const second = await documentNos(provider, 3);
  expect(first).toEqual([
    'INV-20260105-090000.000-00001',
    'INV-20260105-090000.000-00002',
    'INV-20260105-090000.000-00003',
  ]);
  expect(second).toEqual([
    'INV-20260105-090002.500-00001',
    'INV-20260105-090002.500-00002',
    'INV-20260105-090002.500-00003',
  ]);
});

it('answers 400 for a body nested beyond 64 levels, as the messaging API does, where it answered 500', async () => {
  const before = provider.provider.model.messages.all().length;
  const res = await fetch(`${provider.url}/admin/messages/outbound`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // An object, so that it passes the body's own check and reaches what walks it.
    body: `${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`,
  });
  expect(res.status).toBe(400);
  expect(((await res.json()) as { detail: string }).detail).toMatch(
    /^The request body is too deeply nested or too wide: /,
  );
  expect(provider.provider.model.messages.all()).toHaveLength(before);
});
