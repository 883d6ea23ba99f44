/**
 * One soak run (see bench/README.md): the embedded provider in this process, the consumer as a
 * process of its own (`node src/main.ts`, worker included, its importer the importer under
 * test behind the journal importer of test/support/importer-under-test.ts: the file importer,
 * or the one TEST_IMPORTER names with its settings, as `npm run test:importer` sets them),
 * steady traffic and faults now and then, the consumer probed from outside every
 * `sampleSeconds`.
 *
 *   warm-up    traffic and faults for `warmupSeconds`
 *   rest       traffic paused until the inbox is empty and the consumer's descriptors settle:
 *              the baseline sample
 *   run        traffic and faults until `minutes` have passed
 *   rest       the same pause: the end sample
 *   drain      until the service has nothing left to send (a webhook answered 503 is sent
 *              again a minute later) and the inbox nothing left to handle
 *   account    the consumer stopped (SIGTERM), what the provider published and holds is
 *              checked against the inbox and the import journal
 *
 * Everything the run keeps in memory is bounded: counters, the rings of soak-traffic.ts, the
 * two rest samples. Rows are printed as they are taken, the published eventIds go to a file,
 * the consumer's log to another. (The simulator itself keeps every message it was given, as
 * the service would; that is this process's memory, not the consumer's.)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, createWriteStream, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { request } from 'undici';
import type { WebhookEnvelope } from '../src/protocol/index.ts';
import { DEFAULT_API_TOKEN, DEFAULT_PARTY, startProvider } from '../src/provider/provider.ts';
import { seededRandom } from '../src/provider/seeded-random.ts';
import { freePort } from '../test/support/free-port.ts';
import { IMPORTER_UNDER_TEST, journalImporterEnv } from '../test/support/importer-under-test.ts';
import { accountFor, waitForDrain } from './soak-checks.ts';
import { createFaultInjection, type FaultKind } from './soak-faults.ts';
import { probeProcess } from './soak-probe.ts';
import {
  formatSummary,
  judge,
  ownFds,
  ownHandles,
  type Sample,
  tableHeader,
  tableRow,
  type Verdict,
} from './soak-report.ts';
import { createTraffic } from './soak-traffic.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
/** The consumer's API deadline: a hanging call costs this much of one worker slot. */
const API_TIMEOUT_MS = 2_000;
/**
 * At rest, the consumer's idle connections to the messaging API close after the provider's
 * keep-alive timeout (Node's default, 5 s); the descriptors are counted after that.
 */
const API_KEEP_ALIVE_MS = 5_000;
const REST_TIMEOUT_MS = 120_000;

export interface SoakOptions {
  /** Length of the run, warm-up included (the pauses at rest and the drain come on top). */
  minutes: number;
  warmupSeconds: number;
  sampleSeconds: number;
  /** Inbound invoices per second (as many business actions, half as many duplicates). */
  rate: number;
  faults: readonly FaultKind[];
  faultEverySeconds: number;
  /** Seed of the traffic's choices (which invoice, which action, which duplicate). */
  seed: number;
  drainTimeoutSeconds: number;
  /** Keep the work folder (database, documents, logs) even when the run passes. */
  keep: boolean;
  print(line: string): void;
}

export async function runSoak(options: SoakOptions): Promise<Verdict & { dir?: string }> {
  const { print } = options;
  const dir = await mkdtemp(join(tmpdir(), 'soak-'));
  const paths = {
    database: join(dir, 'consumer.db'),
    documents: join(dir, 'documents'),
    published: join(dir, 'published.txt'),
    journal: join(dir, 'imports.jsonl'),
    consumerLog: join(dir, 'consumer.log'),
    providerLog: join(dir, 'provider.log'),
  };
  closeSync(openSync(paths.journal, 'a'));
  const publishedOut = createWriteStream(paths.published);
  let published = 0;
  let onPublished = (_envelope: WebhookEnvelope) => {};
  const provider = await startProvider({
    logger: pino({ level: 'warn' }, pino.destination(paths.providerLog)),
    tap: {
      publish(envelope) {
        if (envelope.party !== DEFAULT_PARTY) return;
        published += 1;
        publishedOut.write(`${envelope.eventId}\n`);
        onPublished(envelope);
      },
    },
  });
  let consumer: ChildProcess | undefined;
  try {
    const port = await freePort();
    const webhookUrl = `http://127.0.0.1:${port}/webhooks`;
    const { secret } = provider.provider.dispatcher.createEndpoint(DEFAULT_PARTY, {
      name: 'soak',
      url: webhookUrl,
    });
    const traffic = createTraffic({
      providerUrl: provider.url,
      webhookUrl,
      secret,
      rate: options.rate,
      random: seededRandom(options.seed),
    });
    onPublished = traffic.published;
    const faults = createFaultInjection({
      providerUrl: provider.url,
      databasePath: paths.database,
      kinds: options.faults,
      everyMs: options.faultEverySeconds * 1000,
      onError: (what) => {
        traffic.counters.errors += 1;
        if (traffic.counters.firstErrors.length < 5) traffic.counters.firstErrors.push(what);
      },
    });

    const log = openSync(paths.consumerLog, 'a');
    const child = spawn(process.execPath, [MAIN], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        WEBHOOK_SECRETS: secret,
        API_BASE_URL: provider.url,
        API_TOKEN: DEFAULT_API_TOKEN,
        API_TIMEOUT_MS: String(API_TIMEOUT_MS),
        DATABASE_URL: `sqlite:${paths.database}`,
        DOCUMENTS_DIR: paths.documents,
        SINK_JOURNAL_FILE: `${paths.documents}-status-journal.jsonl`,
        ...(await journalImporterEnv(paths.journal)),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    consumer = child;
    const exited = once(child, 'exit');
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitForHealth(baseUrl, child, paths.consumerLog);
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    const faultCount = () => Object.values(faults.counts).reduce((sum, n) => sum + n, 0);
    const sample = async (phase: Sample['phase']): Promise<Sample> => ({
      ...(await probeProcess(child.pid as number, baseUrl)),
      seconds: seconds(),
      phase,
      invoices: traffic.counters.invoices,
      eventsPublished: published,
      duplicates: traffic.counters.duplicates,
      faults: faultCount(),
    });

    /** Traffic paused; waits for an empty inbox and settled descriptors, then samples. */
    const rest = async (): Promise<Sample> => {
      await traffic.pause();
      await faults.stop();
      print('(rest: traffic paused until the inbox is empty and the descriptors settle)');
      const paused = performance.now();
      const deadline = paused + REST_TIMEOUT_MS;
      let previous: Sample | undefined;
      let steady = 0;
      for (;;) {
        const now = await sample('rest');
        const open = (now.inbox.pending ?? 0) + (now.inbox.processing ?? 0);
        const same =
          previous !== undefined &&
          ownFds(now) === ownFds(previous) &&
          ownHandles(now) === ownHandles(previous);
        steady = open === 0 && same ? steady + 1 : 0;
        previous = now;
        const settled = steady >= 2 && performance.now() - paused > API_KEEP_ALIVE_MS + 1_000;
        if (settled || performance.now() > deadline) {
          if (!settled) print('(the inbox or the descriptors did not settle; sampled anyway)');
          print(tableRow(now));
          return now;
        }
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    };

    let phase: 'warm-up' | 'run' | 'rest' = 'warm-up';
    let sampling: Promise<void> | undefined;
    const sampler = setInterval(() => {
      if (phase === 'rest' || sampling !== undefined) return;
      const taken = phase;
      sampling = sample(taken)
        .then((s) => {
          if (phase === taken) print(tableRow(s));
        })
        .catch((error: unknown) => print(`(a sample failed: ${String(error)})`))
        .finally(() => {
          sampling = undefined;
        });
    }, options.sampleSeconds * 1000);

    print(
      `soak: ${options.minutes} min (warm-up ${options.warmupSeconds} s), ${options.rate} invoices/s, faults ${options.faults.join(',') || 'none'} every ${options.faultEverySeconds} s, seed ${options.seed}, importer ${IMPORTER_UNDER_TEST}`,
    );
    print(`work folder: ${dir}`);
    print(tableHeader());
    traffic.start();
    faults.start();
    await sleep(options.warmupSeconds * 1000);
    phase = 'rest';
    await sampling;
    const baseline = await rest();
    phase = 'run';
    traffic.start();
    faults.start();
    await sleep(Math.max(0, (options.minutes * 60 - options.warmupSeconds) * 1000));
    phase = 'rest';
    clearInterval(sampler);
    await sampling;
    const end = await rest();

    const drainStarted = performance.now();
    const drained = await waitForDrain({
      databasePath: paths.database,
      dispatcher: provider.provider.dispatcher,
      party: DEFAULT_PARTY,
      timeoutMs: options.drainTimeoutSeconds * 1000,
    });
    const drainSeconds = (performance.now() - drainStarted) / 1000;
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    consumer = undefined;
    await new Promise((resolve) => publishedOut.end(resolve));
    const account = await accountFor({
      databasePath: paths.database,
      publishedFile: paths.published,
      journalFile: paths.journal,
      model: provider.provider.model,
      party: DEFAULT_PARTY,
    });
    const { counters } = traffic;
    print('');
    print(
      formatSummary({
        baseline,
        end,
        account,
        faults: faults.counts,
        duplicates: counters.duplicates,
        duplicatesRefused: counters.duplicatesRefused,
        behind: counters.behind,
        drainSeconds,
        runnerRssBytes: process.memoryUsage.rss(),
      }),
    );
    const verdict = judge({
      baseline,
      end,
      account,
      drained,
      trafficErrors:
        counters.errors === 0
          ? []
          : [
              `${counters.errors} requests of the traffic failed: ${counters.firstErrors.join('; ')}`,
            ],
      consumerExit: code === 0 ? undefined : `the consumer exited with ${code} on SIGTERM`,
    });
    const keep = options.keep || !verdict.passed;
    if (!keep) await rm(dir, { recursive: true, force: true });
    return { ...verdict, ...(keep ? { dir } : {}) };
  } finally {
    if (consumer !== undefined && consumer.exitCode === null) consumer.kill('SIGKILL');
    if (!publishedOut.writableEnded) publishedOut.end();
    await provider.close();
  }
}

async function waitForHealth(baseUrl: string, child: ChildProcess, logFile: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`the consumer did not start:\n${readFileSync(logFile, 'utf8')}`);
    }
    // reset: no keep-alive connection of this process lingers among the consumer's.
    const ok = await request(`${baseUrl}/healthz`, { reset: true }).then(
      async (res) => {
        await res.body.text();
        return res.statusCode === 200;
      },
      () => false,
    );
    if (ok) return;
    await sleep(50);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
