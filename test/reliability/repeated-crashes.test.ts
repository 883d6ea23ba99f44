/**
 * The consumer killed with SIGKILL five times in a row, at seeded random moments, under load:
 * the embedded provider keeps sending inbound invoices (and retries what a dead consumer
 * missed), and senders post signed status events of their own. After each kill the consumer is
 * started again on the same port, database and documents, as a supervisor would. What a user
 * would notice:
 *
 * - every event that got a 204 (from the senders, or from the provider's dispatcher) is in the
 *   inbox and handled;
 * - every invoice is imported exactly once (the journal importer counts every call of the
 *   importer under test, importer-under-test.ts, in every process), its location recorded,
 *   and acknowledged; an import a kill cut short is repeated only with `previouslyAttempted`,
 *   and nothing is ever marked as failed.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { Agent } from 'undici';
import { afterEach, expect, it } from 'vitest';
import type { Clock } from '../../src/provider/clock.ts';
import { type RunningProvider, startProvider } from '../../src/provider/provider.ts';
import { sandboxConsumerEnv } from '../support/consumer-env.ts';
import { createImportJournal, importsByMessage } from '../support/importer-under-test.ts';
import { createTestProcesses, freePort } from '../support/processes.ts';
import { providerAdmin } from '../support/provider-admin.ts';
import { eventually } from '../support/sandbox.ts';
import { testFolder } from '../support/test-folder.ts';
import { buildEnvelope, postSigned } from '../support/webhooks.ts';
import { FUZZ_SEED, seededRandom } from './support/fuzz.ts';

const SECRET = 'whsec_repeated_crashes_0123456789';
const PARTY = '0192:999999999';
const KILLS = 5;

let provider: RunningProvider | undefined;
const processes = createTestProcesses();
afterEach(async () => {
  await processes.killAll();
  await provider?.close();
  provider = undefined;
});

/**
 * Wall time, with timers `scale` times sooner, and `hurry()` to fire every pending one now
 * (the webhook retries a dead consumer missed): a supervisor restarts within a second, the
 * service's schedule would wait a minute.
 */
function createHurryingClock(scale: number): Clock & { hurry(): number } {
  const timers = new Map<number, { fn: () => void; handle: NodeJS.Timeout }>();
  let sequence = 0;
  const fire = (id: number) => {
    const timer = timers.get(id);
    if (timer === undefined) return;
    timers.delete(id);
    clearTimeout(timer.handle);
    timer.fn();
  };
  return {
    now: () => Date.now(),
    setTimer(fn, delayMs) {
      const id = sequence++;
      const handle = setTimeout(() => fire(id), Math.max(0, delayMs / scale));
      handle.unref();
      timers.set(id, { fn, handle });
      return {
        cancel() {
          clearTimeout(handle);
          timers.delete(id);
        },
      };
    },
    hurry() {
      const due = [...timers.keys()];
      for (const id of due) fire(id);
      return due.length;
    },
  };
}

it(`${KILLS} SIGKILLs at seeded moments under load: nothing acknowledged is lost, no invoice imported twice`, async () => {
  const dir = testFolder('repeated-crashes-');
  const journal = await createImportJournal(dir);
  const next = seededRandom(FUZZ_SEED);
  // The service's retries (1 min, 1 min, ..., 10 min) come 60 times sooner, and at once when
  // the test says the consumer is back.
  const clock = createHurryingClock(60);
  provider = await startProvider({ logger: pino({ level: 'silent' }), clock });
  const running = provider;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;

  const start = () =>
    processes.startConsumer({
      cwd: dir,
      port,
      env: {
        ...sandboxConsumerEnv({ secret: SECRET, apiBaseUrl: running.url, dir }),
        API_TIMEOUT_MS: '2000',
        LOG_LEVEL: 'warn',
        ...journal.env,
        // Imports take a while, so that kills land inside them too.
        TEST_IMPORTER_DELAY_MS: '30',
        TEST_IMPORTER_SEED: String(FUZZ_SEED),
      },
      ms: 30_000,
    });

  let consumer = await start();
  running.provider.dispatcher.createEndpoint(PARTY, {
    name: 'consumer',
    url: `${url}/webhooks`,
    secret: SECRET,
  });

  // The load: invoices from the provider, and senders posting status events of those invoices.
  const invoices: string[] = [];
  const acknowledged: string[] = [];
  let stop = false;
  const post = providerAdmin(() => running.url);
  const admin = (path: string, body: unknown = {}) =>
    post<{ messageId: string }>('POST', path, body);
  const produceInvoices = async () => {
    while (!stop) {
      const { messageId } = await admin('/messages/inbound');
      invoices.push(messageId);
      if (invoices.length % 3 === 0) {
        await admin(`/messages/${messageId}/tax-report`, {
          jurisdiction: 'Slovakia',
          status: 'electronic',
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 80));
    }
  };
  const agent = new Agent({ connections: 8 });
  const sendEvents = async () => {
    while (!stop) {
      const messageId = invoices[Math.floor(next() * invoices.length)];
      if (messageId === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        continue;
      }
      const envelope = buildEnvelope({
        messageId,
        action: 'lifecycleStatusChanged',
        data: { formerValue: 'none', newValue: 'paid' },
      });
      try {
        const status = await postSigned(`${url}/webhooks`, envelope, {
          secret: SECRET,
          dispatcher: agent,
        });
        if (status === 204) acknowledged.push(envelope.eventId);
      } catch {
        // The consumer is down: this event was never acknowledged; try another soon.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const load = [produceInvoices(), ...Array.from({ length: 3 }, sendEvents)];

  const killedPids: number[] = [];
  for (let kill = 0; kill < KILLS; kill++) {
    // A seeded moment: 200 to 1000 ms of load after the consumer is ready, and at least one
    // event answered meanwhile (on a busy machine the first answers can take longer), so that
    // every kill lands under load.
    const before = acknowledged.length;
    await new Promise((resolve) => setTimeout(resolve, 200 + Math.floor(next() * 800)));
    await eventually(async () => acknowledged.length > before, 'load reaching the consumer');
    consumer.child.kill('SIGKILL');
    expect(await consumer.exited()).toBeNull();
    killedPids.push(consumer.child.pid as number);
    consumer = await start();
    clock.hurry();
  }
  stop = true;
  await Promise.all(load);
  await agent.close();

  // Everything settles with the last process: the provider's retries arrive, the worker ends.
  const { model, dispatcher } = running.provider;
  const db = new Database(join(dir, 'consumer.db'), { readonly: true });
  try {
    const unsettled = () =>
      (
        db
          .prepare("SELECT count(*) AS n FROM events WHERE state IN ('pending', 'processing')")
          .get() as { n: number }
      ).n;
    await eventually(
      async () =>
        clock.hurry() >= 0 &&
        invoices.every((id) => model.messages.get(id).sides.inbound?.status === 'delivered') &&
        dispatcher.deliveries(PARTY, { state: 'pending' }).length === 0 &&
        unsettled() === 0,
      'every invoice acknowledged and every event handled',
      60_000,
    );
    expect(dispatcher.deliveries(PARTY, { state: 'exhausted' })).toEqual([]);

    const state = db.prepare('SELECT state FROM events WHERE event_id = ?');
    const stateOf = (eventId: string) =>
      (state.get(eventId) as { state: string } | undefined)?.state;
    const succeeded = dispatcher.deliveries(PARTY, { state: 'succeeded' }).map((d) => d.eventId);
    const lost = [...acknowledged, ...succeeded].filter((id) => stateOf(id) === undefined);
    expect(lost, 'answered 204, not in the inbox').toEqual([]);
    const unhandled = [...acknowledged, ...succeeded].filter(
      (id) => !['done', 'skipped'].includes(stateOf(id) as string),
    );
    expect(unhandled, 'answered 204, never handled').toEqual([]);
  } finally {
    db.close();
  }

  // Each invoice imported once: a call answered with its location, and no second import
  // completed. (A kill after the import got through but before the journal's end line leaves
  // the next attempt to find it: `already_imported`, which is the import guarantee at work.)
  const entries = journal.entries();
  const imports = importsByMessage(entries);
  expect([...imports].filter(([, m]) => m.imported > 1)).toEqual([]);
  const missing = invoices.filter((id) => (imports.get(id)?.locations.length ?? 0) === 0);
  expect(missing, 'acknowledged with no import location recorded').toEqual([]);
  const ended = new Set(
    entries.filter((e) => e.phase !== 'start').map((e) => `${e.pid} ${e.messageId}`),
  );
  const cut = entries.filter(
    (e) =>
      e.phase === 'start' && killedPids.includes(e.pid) && !ended.has(`${e.pid} ${e.messageId}`),
  );
  for (const start of cut) {
    const later = entries
      .slice(entries.indexOf(start) + 1)
      .filter((e) => e.phase === 'start' && e.messageId === start.messageId);
    expect(
      later.every((e) => e.previouslyAttempted),
      start.messageId,
    ).toBe(true);
  }
  expect(running.provider.callLog.list().filter((c) => c.path.endsWith('/mark-as-failed'))).toEqual(
    [],
  );
  console.log(
    `repeated crashes: ${KILLS} SIGKILLs, ${acknowledged.length} events answered 204 by the ` +
      `consumer and ${invoices.length} invoices (${cut.length} imports cut short): none lost, each imported once`,
  );
}, 180_000);
