/**
 * One message, one handler, across processes. On one SQLite file, as a user deploys the
 * embedded default: the consumer, two `npm run reconcile` (a slow cron run overlapping the
 * next, or one started by hand) and `npm run replay -- --dead`, all started together, while
 * the service's deliveryNotified webhooks (each sent twice) arrive for half of the messages.
 * A journal importer (IMPORTER_MODULE, as a forker plugs in theirs) records every import() of
 * the importer under test (importer-under-test.ts).
 * Whatever the seed, every message is imported exactly once, its core document fetched once
 * and acknowledged only after it, every process exits 0, and the runs' counts add up.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { newEvent } from '../../src/consumer/store/events.ts';
import { openSqliteStore } from '../../src/consumer/store/sqlite/sqlite-store.ts';
import type { WebhookEnvelope } from '../../src/protocol/index.ts';
import { seededRandom } from '../../src/provider/seeded-random.ts';
import { sandboxConsumerEnv } from '../support/consumer-env.ts';
import { RECONCILE_SCRIPT, REPLAY_SCRIPT } from '../support/entry-points.ts';
import { createImportJournal, importsByMessage } from '../support/importer-under-test.ts';
import { createTestProcesses, freePort } from '../support/processes.ts';
import { type RecordingProvider, startRecordingProvider } from '../support/recording-provider.ts';
import { testFolder } from '../support/test-folder.ts';
import { postSigned } from '../support/webhooks.ts';

const SECRET = 'whsec_one_handler_test';
const PARTY = '0192:999999999';
const MESSAGES = 90;
const SEEDS = [11, 23, 37];

let provider: RecordingProvider | undefined;
const processes = createTestProcesses();

afterEach(async () => {
  await processes.killAll();
  await provider?.close();
  provider = undefined;
});

describe('one message, one handler, in any number of processes', () => {
  it.each(SEEDS)(
    'consumer + 2 reconciliations + replay import each message once (seed %i)',
    async (seed) => {
      const next = seededRandom(seed);
      const dir = testFolder('one-handler-');
      const journal = await createImportJournal(dir);
      provider = await startRecordingProvider();
      const running = provider;

      // Messages pending at the service. No endpoint is set up: the test delivers webhooks.
      const messageIds: string[] = [];
      for (let i = 0; i < MESSAGES; i++) {
        const res = await request(`${running.url}/admin/messages/inbound`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        messageIds.push(((await res.body.json()) as { messageId: string }).messageId);
      }
      const notified = new Map<string, WebhookEnvelope>();
      for (let i = 0; i < 200 && notified.size < MESSAGES; i++) {
        for (const e of running.published) {
          if (e.action === 'deliveryNotified' && e.transfer === 'inbound' && e.party === PARTY)
            notified.set(e.messageId, e);
        }
        if (notified.size < MESSAGES) await new Promise((r) => setTimeout(r, 25));
      }
      expect(notified.size).toBe(MESSAGES);

      // Half get their webhook (twice); a sixth were dead-lettered earlier and get replayed.
      const withWebhook = messageIds.filter(() => next() < 0.5);
      const dead = messageIds.filter((id) => !withWebhook.includes(id) && next() < 0.35);
      const dbPath = join(dir, 'consumer.db');
      const store = await openSqliteStore(dbPath);
      for (const id of dead) {
        const envelope = notified.get(id) as WebhookEnvelope;
        await store.events.insert(
          newEvent(envelope, Buffer.from(JSON.stringify(envelope)), Date.now()),
        );
      }
      for (const claimed of await store.events.claimDue({
        now: Date.now(),
        limit: 1000,
        leaseMs: 1000,
        holder: 'earlier-run',
      })) {
        await store.events.settle(claimed, { state: 'dead', error: 'HTTP 503' }, Date.now());
      }
      await store.close();

      const port = await freePort();
      const env = {
        ...sandboxConsumerEnv({ secret: SECRET, apiBaseUrl: running.url, dir }),
        LOG_LEVEL: 'warn',
        ...journal.env,
        TEST_IMPORTER_SEED: String(seed),
        TEST_IMPORTER_DELAY_MS: '15',
      };
      const start = (script: string, args: string[] = []) =>
        processes.start(script, { cwd: dir, args, env: { ...env, PORT: String(port) } });

      const consumer = await processes.startConsumer({ cwd: dir, port, env, ready: '/healthz' });
      const reconciles = [start(RECONCILE_SCRIPT), start(RECONCILE_SCRIPT)];
      const replay = start(REPLAY_SCRIPT, ['--dead']);
      const deliveries = [...withWebhook, ...withWebhook]
        .map((id) => ({ id, order: next() }))
        .sort((a, b) => a.order - b.order);
      const statuses = await Promise.all(
        deliveries.map(({ id }) =>
          postSigned(`http://127.0.0.1:${port}/webhooks`, notified.get(id), { secret: SECRET }),
        ),
      );
      expect(new Set(statuses)).toEqual(new Set([204]));

      const runs = await Promise.all(
        [...reconciles, replay].map(async (script) => ({
          code: await script.exited(),
          output: script.output(),
        })),
      );
      for (const run of runs) expect(run.code, run.output).toBe(0);

      const inboundStatus = (id: string) =>
        running.provider.model.messages.get(id).sides.inbound?.status;
      for (
        let i = 0;
        i < 600 && !messageIds.every((id) => inboundStatus(id) === 'delivered');
        i++
      ) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(messageIds.filter((id) => inboundStatus(id) !== 'delivered')).toEqual([]);
      // The consumer's own work is done too (the replayed and webhook events settled).
      consumer.child.kill('SIGTERM');
      expect(await consumer.exited(), consumer.output()).toBe(0);

      // Exactly one import() per message, and it answered `imported` with a location; none
      // failed.
      const entries = journal.entries();
      const imports = importsByMessage(entries);
      expect([...imports.keys()].sort()).toEqual([...messageIds].sort());
      const notOnce = [...imports].filter(
        ([, m]) => m.calls !== 1 || m.imported !== 1 || m.locations.length !== 1,
      );
      expect(notOnce).toEqual([]);
      expect(entries.filter((e) => e.phase === 'error')).toEqual([]);

      // What the reconciliations report adds up: each import counted by the run that did it.
      const importedBy = (pid: number | undefined) =>
        entries.filter((e) => e.phase === 'end' && e.pid === pid).length;
      const reported = runs.slice(0, 2).map((run) => {
        const match = /imported=(\d+)/.exec(run.output);
        return Number(match?.[1]);
      });
      expect(reported).toEqual(reconciles.map((r) => importedBy(r.child.pid)));

      // At the service: the core document fetched once per message, acknowledged after it.
      for (const id of messageIds) {
        const calls = running.provider.callLog.list({ messageId: id });
        const core = calls.findIndex((c) => c.path.endsWith('/documents/core'));
        const acknowledged = calls.findIndex((c) => c.path.endsWith('/mark-as-delivered'));
        expect(
          calls.filter((c) => c.path.endsWith('/documents/core')),
          id,
        ).toHaveLength(1);
        expect(acknowledged, id).toBeGreaterThan(core);
        expect(
          calls.some((c) => c.path.endsWith('/mark-as-failed')),
          id,
        ).toBe(false);
      }
    },
    90_000,
  );
});
