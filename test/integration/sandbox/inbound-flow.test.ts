/** The consumer's duties for inbound messages, against the embedded provider over real HTTP. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { documentFolder } from '../../../src/consumer/importer/file-importer.ts';
import {
  createFileImporter,
  type Importer,
  PermanentImportError,
} from '../../../src/consumer/importer/index.ts';
import { countEvents } from '../../support/consumer.ts';
import { eventually, type Sandbox, startSandboxForTest } from '../../support/sandbox.ts';

let sandbox: Sandbox;

interface ApiCall {
  method: string;
  path: string;
  status: number | null;
}
const apiCalls = async (messageId: string) =>
  (await sandbox.admin<{ items: ApiCall[] }>('GET', `/api-calls?messageId=${messageId}`)).items;
/** Read through the admin API, which injected faults of the messaging API do not touch. */
const providerStatus = async (messageId: string) =>
  (
    await sandbox.admin<{ sides: { inbound?: { status: string } } }>(
      'GET',
      `/messages/${messageId}`,
    )
  ).sides.inbound?.status;
/** The sandbox participant's events of the message (the tap also sees the sender's). */
const inboundEvents = (messageId: string, action: string, newValue?: string) =>
  sandbox.published.filter(
    (e) =>
      e.messageId === messageId &&
      e.transfer === 'inbound' &&
      e.action === action &&
      (newValue === undefined || (e.data as { newValue?: string }).newValue === newValue),
  );

/** The real file importer, counting the imports that reach it. */
function countingImporter(documentsDir: () => string, counts: Map<string, number>): Importer {
  return {
    async import(input) {
      counts.set(input.messageId, (counts.get(input.messageId) ?? 0) + 1);
      return createFileImporter({ documentsDir: documentsDir() }).import(input);
    },
  };
}

describe('inbound invoice', () => {
  it('is stored, imported and acknowledged; the provider shows delivered', async () => {
    sandbox = await startSandboxForTest();
    const messageId = await sandbox.sendInboundInvoice();

    await eventually(
      async () => (await providerStatus(messageId)) === 'delivered',
      'delivered at the provider',
    );
    const folder = documentFolder(join(sandbox.consumer.dir, 'documents'), 'inbound', messageId);
    const xml = readFileSync(join(folder, 'core.xml'), 'utf8');
    const json = JSON.parse(readFileSync(join(folder, 'transaction.json'), 'utf8'));
    expect(xml).toContain(json.invoice.invoiceNo);
    expect(existsSync(join(folder, 'manifest.json'))).toBe(true);

    // The service reports the consumer's own change back; the consumer applies it.
    const view = await eventually(async () => {
      const { body } = await sandbox.view(messageId);
      return body?.inbound?.deliveryStatus === 'delivered' ? body : undefined;
    }, 'the consumer to see its own change');
    expect(view).toMatchObject({
      messageId,
      outbound: null,
      inbound: {
        deliveryStatus: 'delivered',
        documentNo: json.invoice.invoiceNo,
        validationStatus: 'approved',
      },
    });
    expect(view.inbound?.importedAt).not.toBeNull();
    expect(view.inbound?.acknowledgedAt).not.toBeNull();
    expect(inboundEvents(messageId, 'messageStatusChanged', 'delivered')).toHaveLength(1);
    const calls = await apiCalls(messageId);
    expect(calls.filter((c) => c.path.endsWith('/mark-as-delivered'))).toHaveLength(1);
    expect(calls.filter((c) => c.path.endsWith('/mark-as-failed'))).toHaveLength(0);
    const metrics = await (await request(`${sandbox.consumer.url}/metrics`)).body.text();
    expect(metrics).toMatch(/worker_events_total\{state="done",action="deliveryNotified"\} 1/);
  });

  it('imports once when the same deliveryNotified arrives three times at once', async () => {
    const counts = new Map<string, number>();
    sandbox = await startSandboxForTest({
      importer: countingImporter(() => join(sandbox.consumer.dir, 'documents'), counts),
    });
    const messageId = await sandbox.sendInboundInvoice();
    await eventually(
      async () => (await providerStatus(messageId)) === 'delivered',
      'first delivery',
    );
    const [notified] = inboundEvents(messageId, 'deliveryNotified');
    if (notified === undefined) throw new Error('no deliveryNotified published');

    const statuses = await Promise.all([1, 2, 3].map(() => sandbox.post(notified)));
    expect(statuses).toEqual([204, 204, 204]);
    await sandbox.consumer.worker.drain();

    expect(counts.get(messageId)).toBe(1);
    expect(inboundEvents(messageId, 'messageStatusChanged', 'delivered')).toHaveLength(1);
  });

  it('survives 500s and a hang from the API without ever calling mark-as-failed', async () => {
    sandbox = await startSandboxForTest({ consumerEnv: { API_TIMEOUT_MS: '300' } });
    await sandbox.admin('POST', '/faults', { count: 5, mode: '500' });
    await sandbox.admin('POST', '/faults', { count: 1, mode: 'hang', hangMs: 2000 });
    const messageId = await sandbox.sendInboundInvoice();

    await eventually(
      async () => (await providerStatus(messageId)) === 'delivered',
      'delivery despite faults',
      20_000,
    );
    expect(
      readdirSync(documentFolder(join(sandbox.consumer.dir, 'documents'), 'inbound', messageId)),
    ).toContain('core.xml');
    const calls = await apiCalls(messageId);
    expect(calls.some((c) => c.status === 500)).toBe(true);
    expect(calls.filter((c) => c.path.endsWith('/mark-as-failed'))).toHaveLength(0);
    expect((await sandbox.admin<{ items: unknown[] }>('GET', '/faults')).items).toEqual([]);
  });

  it('marks a message failed with the reason when the import rejects it for good', async () => {
    const rejecting: Importer = {
      async import() {
        throw new PermanentImportError('unknown supplier 0192:111111111 in the ERP');
      },
    };
    sandbox = await startSandboxForTest({ importer: rejecting });
    const messageId = await sandbox.sendInboundInvoice();

    await eventually(
      async () => (await providerStatus(messageId)) === 'failed',
      'failed at the provider',
    );
    const failedEvent = await eventually(
      async () => inboundEvents(messageId, 'messageStatusChanged', 'failed')[0],
      'the failed status event',
    );
    expect(JSON.stringify(failedEvent.data)).toContain('unknown supplier');
    const calls = await apiCalls(messageId);
    expect(calls.filter((c) => c.path.endsWith('/mark-as-delivered'))).toHaveLength(0);
    expect(calls.filter((c) => c.path.endsWith('/mark-as-failed'))).toHaveLength(1);
    expect(
      existsSync(documentFolder(join(sandbox.consumer.dir, 'documents'), 'inbound', messageId)),
    ).toBe(false);
  });

  it('after a stop between import and acknowledgement, acknowledges without importing again', async () => {
    const counts = new Map<string, number>();
    const importer = countingImporter(() => join(sandbox.consumer.dir, 'documents'), counts);
    sandbox = await startSandboxForTest({
      importer: {
        async import(input) {
          const result = await importer.import(input);
          // From now on every acknowledgement fails, as if the process died right here.
          await sandbox.admin('POST', '/faults', {
            count: 1000,
            mode: '503',
            pathPrefix: `/messages/${input.messageId}/mark-as-delivered`,
          });
          return result;
        },
      },
    });
    const messageId = await sandbox.sendInboundInvoice();
    await eventually(async () => (counts.get(messageId) ?? 0) > 0, 'the import');
    await eventually(async () => {
      const { body } = await sandbox.view(messageId);
      return body?.inbound?.importedAt != null;
    }, 'the import to be recorded');
    await sandbox.stopConsumer();
    await sandbox.admin('DELETE', '/faults');

    await sandbox.restartConsumer();
    await eventually(
      async () => (await providerStatus(messageId)) === 'delivered',
      'delivered after the restart',
    );
    expect(counts.get(messageId)).toBe(1);
    expect(countEvents(sandbox.consumer.store)).toBeGreaterThan(0);
  });

  it('stops within SHUTDOWN_TIMEOUT_MS even while an API call hangs', async () => {
    sandbox = await startSandboxForTest({
      consumerEnv: { SHUTDOWN_TIMEOUT_MS: '300', API_TIMEOUT_MS: '60000' },
    });
    await sandbox.admin('POST', '/faults', { count: 1, mode: 'hang', hangMs: 60_000 });
    const messageId = await sandbox.sendInboundInvoice();
    await eventually(
      async () => (await apiCalls(messageId)).some((c) => c.status === null),
      'a hanging call',
    );

    expect(await sandbox.consumer.close()).toEqual({ forced: true });
    // The claimed event is taken again after a restart, and the message delivered.
    await sandbox.admin('DELETE', '/faults');
    await sandbox.restartConsumer();
    await eventually(
      async () => (await providerStatus(messageId)) === 'delivered',
      'delivery after the restart',
    );
  });

  it('stores test events and unknown actions, answers 204, imports nothing', async () => {
    sandbox = await startSandboxForTest();
    const endpoint = sandbox.provider.provider.dispatcher.listEndpoints('0192:999999999')[0];
    if (endpoint === undefined) throw new Error('no endpoint');
    const result = await sandbox.provider.provider.dispatcher.sendTestEvent(
      '0192:999999999',
      endpoint.id,
      {
        category: 'inbound',
        action: 'deliveryNotified',
      },
    );
    expect(result.statusCode).toBe(204);
    const testEvent = JSON.parse(result.request.body);

    const unknown = {
      ...testEvent,
      eventId: `${testEvent.eventId}-x`,
      test: false,
      action: 'documentAdded',
    };
    expect(await sandbox.post(unknown)).toBe(204);
    await sandbox.consumer.worker.drain();

    for (const eventId of [testEvent.eventId, unknown.eventId]) {
      expect((await sandbox.consumer.store.events.get(eventId))?.state).toBe('skipped');
    }
    expect(existsSync(join(sandbox.consumer.dir, 'documents'))).toBe(false);
    expect(await apiCalls(testEvent.messageId)).toEqual([]);
  });
});
