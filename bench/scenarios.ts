/**
 * The load scenarios, run one after the other against a fresh server process each:
 *   baseline    bare node:http answering 204 to the same signed requests;
 *   ingress     the consumer storing a distinct event per request, then the durability check;
 *   duplicates  the consumer receiving one signed event over and over (the dedupe path).
 * Each starts with a warm-up run (JIT, SQLite page cache, connection set-up) whose figures
 * are dropped; only its acknowledgements count towards the durability check.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkInbox, type InboxCheck } from './inbox-check.ts';
import { type LoadOptions, type LoadResult, runLoad } from './load.ts';
import { type ServerProcess, startServerProcess } from './server-process.ts';
import { createRequestSource } from './webhook-requests.ts';

export interface ScenarioOptions {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface ScenarioResult extends LoadResult {
  name: string;
  description: string;
  /** Non-2xx answers during the warm-up; they count as failures too. */
  warmupNon2xx: number;
  /** CPU time of the server process over the measured run, as a share of one core. */
  serverCpu: number;
  /** req/s over the baseline's req/s in this run. */
  ratioToBaseline: number;
  inbox?: InboxCheck;
}

type Measured = Omit<ScenarioResult, 'name' | 'description' | 'ratioToBaseline' | 'inbox'>;

export async function runScenarios(options: ScenarioOptions): Promise<ScenarioResult[]> {
  const secret = randomBytes(24).toString('base64url');
  const dir = await mkdtemp(join(tmpdir(), 'webhook-bench-'));
  // Room for the answers lost when a run stops with one request in flight per connection.
  const maxUnanswered = 2 * options.connections;
  try {
    const baseline = await measure(
      await startServerProcess('bare-server.ts', {}),
      { next: createRequestSource(secret) },
      options,
    );

    const ingressDb = join(dir, 'ingress.db');
    const acknowledged = new Set<string>();
    const ingress = await measure(
      await startServerProcess('consumer-server.ts', consumerEnv(secret, ingressDb, dir)),
      { next: createRequestSource(secret), onAcknowledged: (id) => acknowledged.add(id) },
      options,
    );
    const ingressInbox = checkInbox(ingressDb, acknowledged, maxUnanswered);

    const duplicatesDb = join(dir, 'duplicates.db');
    const event = createRequestSource(secret)();
    const acknowledgedOnce = new Set<string>();
    const duplicates = await measure(
      await startServerProcess('consumer-server.ts', consumerEnv(secret, duplicatesDb, dir)),
      { next: () => event, onAcknowledged: (id) => acknowledgedOnce.add(id) },
      options,
    );
    // Exactly one row however many times it was posted.
    const duplicatesInbox = checkInbox(duplicatesDb, acknowledgedOnce, 0);

    const ratio = (r: Measured) => r.requestsPerSecond / baseline.requestsPerSecond;
    return [
      {
        name: 'baseline',
        description: 'bare node:http, read body, 204',
        ...baseline,
        ratioToBaseline: 1,
      },
      {
        name: 'ingress',
        description: 'consumer: verify + parse + insert (group commit, FULL), distinct events',
        ...ingress,
        ratioToBaseline: ratio(ingress),
        inbox: ingressInbox,
      },
      {
        name: 'duplicates',
        description: 'consumer: one signed event repeated (dedupe, no new row)',
        ...duplicates,
        ratioToBaseline: ratio(duplicates),
        inbox: duplicatesInbox,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The consumer's configuration, read by loadConfig in the child. API_BASE_URL and API_TOKEN
 * are required there but unused: startConsumer runs the ingress only, not the worker.
 */
function consumerEnv(secret: string, databasePath: string, dir: string): Record<string, string> {
  return {
    PORT: '0',
    WEBHOOK_SECRETS: secret,
    DATABASE_URL: `sqlite:${databasePath}`,
    DOCUMENTS_DIR: join(dir, 'documents'),
    API_BASE_URL: 'http://127.0.0.1:9',
    API_TOKEN: 'unused-by-ingress',
    // Problems only: a log line per request would measure pino, not the ingress.
    LOG_LEVEL: 'warn',
  };
}

async function measure(
  server: ServerProcess,
  load: Pick<LoadOptions, 'next' | 'onAcknowledged'>,
  options: ScenarioOptions,
): Promise<Measured> {
  try {
    const common = { ...load, url: server.url, connections: options.connections };
    const warmup = await runLoad({ ...common, durationSeconds: options.warmupSeconds });
    const cpuBefore = await server.cpuMicros();
    const started = performance.now();
    const result = await runLoad({ ...common, durationSeconds: options.durationSeconds });
    const serverCpu =
      ((await server.cpuMicros()) - cpuBefore) / ((performance.now() - started) * 1000);
    return { ...result, warmupNon2xx: warmup.non2xx, serverCpu };
  } finally {
    await server.stop();
  }
}
