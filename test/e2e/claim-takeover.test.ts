/**
 * The message claim between real processes, at its edges: the holder is killed in the middle
 * of an import, or its import runs past the deadline while another process waits for the
 * message. Either way the invoice ends imported once (one import() that completed) and
 * acknowledged. The journal importer (IMPORTER_MODULE) records every import() call of the
 * importer under test (importer-under-test.ts); its hangs come before that importer is called.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WebhookEnvelope } from '../../src/protocol/index.ts';
import { sandboxConsumerEnv } from '../support/consumer-env.ts';
import { RECONCILE_SCRIPT } from '../support/entry-points.ts';
import {
  createImportJournal,
  type ImportJournal,
  importsByMessage,
} from '../support/importer-under-test.ts';
import { createTestProcesses, freePort, runScript, waitForOutput } from '../support/processes.ts';
import { providerAdmin } from '../support/provider-admin.ts';
import {
  publishedDeliveryNotified,
  type RecordingProvider,
  startRecordingProvider,
} from '../support/recording-provider.ts';
import { testFolder } from '../support/test-folder.ts';
import { postSigned } from '../support/webhooks.ts';

const SECRET = 'whsec_claim_takeover_test';
const PARTY = '0192:999999999';

let dir: string;
let journal: ImportJournal;
let provider: RecordingProvider;
const processes = createTestProcesses();

beforeEach(async () => {
  dir = testFolder('claim-takeover-');
  journal = await createImportJournal(dir);
  provider = await startRecordingProvider();
});
afterEach(async () => {
  await processes.killAll();
  await provider.close();
});

function env(overrides: Record<string, string>) {
  return {
    ...sandboxConsumerEnv({ secret: SECRET, apiBaseUrl: provider.url, dir }),
    LOG_LEVEL: 'warn',
    ...journal.env,
    ...overrides,
  };
}

const admin = providerAdmin(() => provider.url);

/** An inbound invoice pending at the service, and its deliveryNotified event. */
async function pendingInvoice(): Promise<{ messageId: string; notified: WebhookEnvelope }> {
  const { messageId } = await admin<{ messageId: string }>('POST', '/messages/inbound', {});
  return { messageId, notified: await publishedDeliveryNotified(provider, messageId, PARTY) };
}

async function startConsumer(overrides: Record<string, string>) {
  const port = await freePort();
  const consumer = await processes.startConsumer({
    cwd: dir,
    port,
    env: env(overrides),
    ready: '/healthz',
  });
  return { consumer, webhookUrl: `http://127.0.0.1:${port}/webhooks` };
}

const post = (url: string, envelope: WebhookEnvelope) =>
  postSigned(url, envelope, { secret: SECRET });

/** One import() answered `imported`, with a location; none answered `already_imported`. */
const IMPORTED_ONCE = { imported: 1, alreadyImported: 0, locations: [expect.any(String)] };

const inboundStatus = (messageId: string) =>
  provider.provider.model.messages.get(messageId).sides.inbound?.status;

describe('the message claim between processes', () => {
  it('a holder killed mid-import: its lease hands the message to a reconciliation', async () => {
    const { messageId, notified } = await pendingInvoice();
    const { consumer, webhookUrl } = await startConsumer({
      CLAIM_LEASE_MS: '1000',
      TEST_IMPORTER_HANG: 'ignore-signal',
      TEST_IMPORTER_HANG_MS: '60000',
    });
    expect(await post(webhookUrl, notified)).toBe(204);
    await journal.waitFor((entries) => entries.some((e) => e.phase === 'start'));
    consumer.child.kill('SIGKILL');
    expect(await consumer.exited()).toBeNull();

    const run = await runScript(RECONCILE_SCRIPT, {
      cwd: dir,
      env: env({ CLAIM_LEASE_MS: '1000' }),
    });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('found=1 imported=1 acknowledged=1 rejected=0 busy=0');

    const entries = journal.entries();
    expect(
      entries.map((e) => [e.phase, e.pid === consumer.child.pid, e.previouslyAttempted]),
    ).toEqual([
      ['start', true, false],
      // The reconciliation is told an earlier import of this message may have got through.
      ['start', false, true],
      ['end', false, true],
    ]);
    expect(importsByMessage(entries).get(messageId)).toMatchObject(IMPORTED_ONCE);
    expect(inboundStatus(messageId)).toBe('delivered');
  });

  it('an import past its deadline keeps the message claimed until it ends; the waiter only acknowledges', async () => {
    const { messageId, notified } = await pendingInvoice();
    const gate = join(dir, 'gate');
    const { consumer, webhookUrl } = await startConsumer({
      CLAIM_LEASE_MS: '600',
      IMPORT_TIMEOUT_MS: '300',
      TEST_IMPORTER_HANG: 'until-gate',
      TEST_IMPORTER_GATE: gate,
    });
    expect(await post(webhookUrl, notified)).toBe(204);
    await journal.waitFor((entries) => entries.some((e) => e.phase === 'start'));

    // A reconciliation finds the message claimed and waits, long past the import's deadline
    // (300 ms) and past the consumer's first lease (600 ms); only then does the import end.
    const reconcile = processes.start(RECONCILE_SCRIPT, {
      cwd: dir,
      env: env({ CLAIM_LEASE_MS: '600', IMPORT_TIMEOUT_MS: '30000', LOG_LEVEL: 'info' }),
    });
    await waitForOutput(reconcile, 'waiting for a message another handler holds');
    await new Promise((r) => setTimeout(r, 700));
    writeFileSync(gate, '');

    expect(await reconcile.exited(), reconcile.output()).toBe(0);
    expect(reconcile.output()).toContain('found=1 imported=0 acknowledged=1 rejected=0 busy=0');
    const entries = journal.entries();
    expect(entries.map((e) => [e.phase, e.pid === consumer.child.pid])).toEqual([
      ['start', true],
      ['end', true],
    ]);
    expect(importsByMessage(entries).get(messageId)).toMatchObject(IMPORTED_ONCE);
    expect(inboundStatus(messageId)).toBe('delivered');
    expect(consumer.output()).toContain('import passed its deadline');
  });

  it('an import that honours its deadline stops; the waiter then imports, once', async () => {
    const { messageId, notified } = await pendingInvoice();
    const { consumer, webhookUrl } = await startConsumer({
      CLAIM_LEASE_MS: '600',
      IMPORT_TIMEOUT_MS: '300',
      TEST_IMPORTER_HANG: 'until-aborted',
    });
    expect(await post(webhookUrl, notified)).toBe(204);
    await journal.waitFor((entries) => entries.some((e) => e.phase === 'start'));

    const run = await runScript(RECONCILE_SCRIPT, {
      cwd: dir,
      env: env({ CLAIM_LEASE_MS: '600', IMPORT_TIMEOUT_MS: '5000' }),
    });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('found=1 imported=1 acknowledged=1 rejected=0 busy=0');
    expect(inboundStatus(messageId)).toBe('delivered');

    // Only the reconciliation completed an import; the consumer's attempts (its first, and
    // perhaps a retry meanwhile) all stopped at their deadline.
    const entries = journal.entries();
    const ends = entries.filter((e) => e.phase === 'end');
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatchObject({ previouslyAttempted: true });
    expect(ends[0]?.pid).not.toBe(consumer.child.pid);
    expect(importsByMessage(entries).get(messageId)).toMatchObject(IMPORTED_ONCE);
    const mine = entries.filter((e) => e.pid === consumer.child.pid);
    expect(mine.filter((e) => e.phase === 'error').length).toBeGreaterThanOrEqual(1);
    expect(mine.filter((e) => e.phase === 'end')).toEqual([]);
  });
});
