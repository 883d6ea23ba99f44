/**
 * A full disk under the database and the documents (a 16 MiB tmpfs holding both, filled to
 * the last byte), while the service keeps sending: webhooks directly, and invoices through the
 * embedded provider, which retries what was refused. What a user would notice:
 *
 * - no 204 for an event that is not stored: each one answered 204 is in the inbox at once;
 * - the webhook answers 503 meanwhile (the service retries), and /readyz says not ready,
 *   naming the store;
 * - both recover by themselves once space is back: nothing to restart, no operator action;
 *   every invoice is imported once and acknowledged, every stored event handled.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { expect, it } from 'vitest';
import { documentFolder } from '../../src/consumer/importer/file-importer.ts';
import { createFileImporter, type Importer } from '../../src/consumer/importer/index.ts';
import { consumerFilesEnv } from '../support/consumer-env.ts';
import { eventually, type Sandbox, startSandboxForTest } from '../support/sandbox.ts';
import { buildEnvelope } from '../support/webhooks.ts';
import { describeWithSmallDisk, mountSmallDiskForTest } from './support/small-disk.ts';

async function readiness(s: Sandbox) {
  const res = await request(`${s.consumer.url}/readyz`);
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}

const providerStatus = (s: Sandbox, messageId: string) =>
  s.provider.provider.model.messages.get(messageId).sides.inbound?.status;

describeWithSmallDisk('a full disk under the database and the documents', () => {
  it('503 and not ready while full, never a 204 for an event not stored; recovers by itself', async () => {
    const d = mountSmallDiskForTest(16 * 1024 * 1024);
    // The default file importer, counting the imports it completes.
    const files = createFileImporter({ documentsDir: join(d.path, 'documents') });
    const imported = new Map<string, number>();
    const importer: Importer = {
      async import(input) {
        const result = await files.import(input);
        if (result.status === 'imported') {
          imported.set(input.messageId, (imported.get(input.messageId) ?? 0) + 1);
        }
        return result;
      },
    };
    const s = await startSandboxForTest({
      importer,
      // The service's retries (1 min, 1 min, ...) come 600 times sooner.
      provider: { timeScale: 600 },
      consumerEnv: consumerFilesEnv(d.path),
    });
    const invoices: string[] = [];
    invoices.push(await s.sendInboundInvoice());
    await eventually(
      async () => providerStatus(s, invoices[0] as string) === 'delivered',
      'a first invoice',
    );

    const answered = new Map<string, number>();
    /**
     * Posts one event (a status change of about 2 KB for the first invoice, which the worker
     * applies) and checks the 204's promise at once.
     */
    const post = async () => {
      const envelope = buildEnvelope({
        messageId: invoices[0] as string,
        action: 'lifecycleStatusChanged',
        data: { formerValue: 'none', newValue: 'paid', properties: { reason: 'x'.repeat(2000) } },
      });
      const status = await s.post(envelope);
      answered.set(envelope.eventId, status);
      if (status === 204) {
        expect(
          await s.consumer.store.events.get(envelope.eventId),
          'a 204 for an event not stored',
        ).toBeDefined();
      } else {
        expect(status).toBe(503);
      }
      return status;
    };

    d.fill();
    // The service keeps sending: invoices through the provider, events directly.
    for (let i = 0; i < 3; i++) invoices.push(await s.sendInboundInvoice());
    const during: number[] = [];
    for (let round = 0; round < 10; round++) {
      during.push(...(await Promise.all(Array.from({ length: 5 }, post))));
    }
    // The fault bit: refused, not acknowledged and lost.
    expect(during.filter((status) => status === 503).length).toBeGreaterThan(0);
    const notReady = await eventually(async () => {
      const ready = await readiness(s);
      return ready.status === 503 ? ready.body : undefined;
    }, 'readiness to report the full disk');
    expect(notReady).toMatchObject({
      status: 'not ready',
      failures: { store: expect.any(String) },
    });
    const health = await request(`${s.consumer.url}/healthz`);
    await health.body.text();
    expect(health.statusCode).toBe(200);

    d.free();
    // By itself: readiness and the webhook come back, no restart.
    await eventually(async () => (await readiness(s)).status === 200, 'readiness back');
    await eventually(async () => (await post()) === 204, 'a webhook accepted again');
    for (let i = 0; i < 10; i++) expect(await post()).toBe(204);
    // What was refused during the fault, the service sends again; and it arrives.
    await eventually(
      async () => invoices.every((id) => providerStatus(s, id) === 'delivered'),
      'every invoice imported and acknowledged',
      20_000,
    );
    await s.consumer.worker.drain();

    const stored = [...answered.entries()].filter(([, status]) => status === 204);
    for (const [eventId] of stored) {
      expect((await s.consumer.store.events.get(eventId))?.state, eventId).toBe('done');
    }
    expect(await s.consumer.store.events.countOpen()).toMatchObject({
      pending: 0,
      processing: 0,
      dead: 0,
    });
    for (const id of invoices) {
      expect(readdirSync(documentFolder(join(d.path, 'documents'), 'inbound', id))).toContain(
        'manifest.json',
      );
    }
    expect([...imported.values()]).toEqual(invoices.map(() => 1));
    expect(
      s.provider.provider.callLog.list().filter((c) => c.path.endsWith('/mark-as-failed')),
    ).toEqual([]);
    expect(s.consumer.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
    console.log(
      `disk full: ${during.filter((x) => x === 503).length} of ${during.length} webhooks answered 503 ` +
        `and ${during.filter((x) => x === 204).length} 204 (each stored) while full; ` +
        `${invoices.length} invoices imported once after the space came back`,
    );
  }, 60_000);
});
