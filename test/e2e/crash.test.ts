/**
 * The consumer killed with SIGKILL, as an OOM killer or a power cut would: no event that got a
 * 204 is lost, and a message imported but not yet acknowledged is acknowledged after the
 * restart without a second import. The consumers import through the journal importer, with
 * the importer under test (importer-under-test.ts), and the journal shows what they imported.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/consumer/store/sqlite/sqlite-store.ts';
import { type RunningProvider, startProvider } from '../../src/provider/provider.ts';
import { sandboxConsumerEnv } from '../support/consumer-env.ts';
import { CONSUMER_MAIN } from '../support/entry-points.ts';
import {
  createImportJournal,
  IMPORTER_UNDER_TEST,
  type ImportJournal,
  importsByMessage,
} from '../support/importer-under-test.ts';
import {
  createTestProcesses,
  freePort,
  type RunningScript,
  waitForOutput,
} from '../support/processes.ts';
import { providerAdmin } from '../support/provider-admin.ts';
import { testFolder } from '../support/test-folder.ts';
import { buildEnvelope, postSigned } from '../support/webhooks.ts';

const SECRET = 'whsec_crash_test';
const PARTY = '0192:999999999';

let dir: string;
let journal: ImportJournal;
let port: number;
let provider: RunningProvider | undefined;
const running = createTestProcesses();

async function startConsumerProcess(apiBaseUrl = 'http://127.0.0.1:9') {
  const consumer = running.start(CONSUMER_MAIN, {
    cwd: dir,
    env: {
      PORT: String(port),
      ...sandboxConsumerEnv({ secret: SECRET, apiBaseUrl, dir }),
      LOG_LEVEL: 'info',
      ...journal.env,
    },
  });
  await waitForOutput(consumer, 'consumer listening', 10_000);
  return consumer;
}

async function kill(consumer: RunningScript) {
  consumer.child.kill('SIGKILL');
  expect(await consumer.exited()).toBeNull();
}

beforeEach(async () => {
  dir = testFolder('crash-e2e-');
  journal = await createImportJournal(dir);
  port = await freePort();
});
afterEach(async () => {
  await running.killAll();
  await provider?.close();
  provider = undefined;
});

describe('SIGKILL', () => {
  it('loses no event that was answered 204', async () => {
    const consumer = await startConsumerProcess();
    const url = `http://127.0.0.1:${port}/webhooks`;
    const agent = new Agent({ connections: 20 });
    const acknowledged: string[] = [];
    let stop = false;
    const sender = async () => {
      while (!stop) {
        const envelope = buildEnvelope();
        try {
          const status = await postSigned(url, envelope, { secret: SECRET, dispatcher: agent });
          if (status === 204) acknowledged.push(envelope.eventId);
        } catch {
          return; // the process is gone
        }
      }
    };
    const senders = Array.from({ length: 20 }, sender);
    while (acknowledged.length < 500) await new Promise((r) => setTimeout(r, 10));
    await kill(consumer);
    stop = true;
    await Promise.all(senders);
    await agent.close();

    const store = await openSqliteStore(join(dir, 'consumer.db'));
    const stored = new Set(
      (store.db.prepare('SELECT event_id FROM events').all() as { event_id: string }[]).map(
        (r) => r.event_id,
      ),
    );
    await store.close();
    expect(acknowledged.length).toBeGreaterThanOrEqual(500);
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
  });

  it('between import and mark-as-delivered: acknowledged after the restart, imported once', async () => {
    provider = await startProvider({ logger: pino({ level: 'silent' }) });
    const admin = providerAdmin(() => provider?.url ?? '');
    // The message exists before the consumer hears of it, so the fault can name it: its
    // acknowledgement hangs, which is where the process will die.
    const { messageId } = await admin('POST', '/messages/inbound', {});
    await admin('POST', '/faults', {
      count: 1,
      mode: 'hang',
      hangMs: 60_000,
      pathPrefix: `/messages/${messageId}/mark-as-delivered`,
    });
    const consumer = await startConsumerProcess(provider.url);
    provider.provider.dispatcher.createEndpoint(PARTY, {
      name: 'consumer',
      url: `http://127.0.0.1:${port}/webhooks`,
      secret: SECRET,
    });
    const notified = provider.provider.dispatcher
      .deliveries(PARTY, { messageId, state: 'exhausted' })
      .find((d) => d.action === 'deliveryNotified');
    if (notified === undefined) throw new Error('deliveryNotified was not held back');
    provider.provider.dispatcher.redeliver(notified.eventId);

    const calls = async () =>
      (
        await admin<{ items: { path: string; status: number | null }[] }>(
          'GET',
          `/api-calls?messageId=${messageId}`,
        )
      ).items;
    let hanging = false;
    for (let i = 0; i < 200 && !hanging; i++) {
      hanging = (await calls()).some(
        (c) => c.path.endsWith('/mark-as-delivered') && c.status === null,
      );
      if (!hanging) await new Promise((r) => setTimeout(r, 50));
    }
    expect(hanging).toBe(true);
    // Imported (the journal's line is written before import() returns, so before the
    // acknowledgement that hangs), with a location.
    expect(journal.byMessage().get(messageId)).toMatchObject({
      calls: 1,
      imported: 1,
      locations: [expect.any(String)],
    });
    await kill(consumer);

    const restarted = await startConsumerProcess(provider.url);
    let status = '';
    for (let i = 0; i < 200 && status !== 'delivered'; i++) {
      status = (await admin('GET', `/messages/${messageId}`)).sides.inbound.status;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe('delivered');
    // Not imported again: the restarted consumer did not call import(), or was told the
    // message is already there. Never a second 'imported'.
    const entries = journal.entries();
    expect(importsByMessage(entries).get(messageId)).toMatchObject({ imported: 1, errors: 0 });
    const again = entries.filter((e) => e.pid === restarted.child.pid);
    expect(
      again.filter((e) => e.phase === 'end').map((e) => e.status),
      `${IMPORTER_UNDER_TEST}: ${JSON.stringify(again)}`,
    ).toEqual(again.length === 0 ? [] : ['already_imported']);
    const fetches = (await calls()).filter((c) => c.path.endsWith('/documents/core'));
    expect(fetches).toHaveLength(1);
  });
});
