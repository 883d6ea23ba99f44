/**
 * The load scenarios of `npm run bench`, one after the other, each against a fresh server
 * process and, for the consumer, a fresh SQLite file:
 *   (a) bare       bare node:http reading the body, 204
 *   (b) express    express 5 with express.raw, 204: the reference the targets are ratios of
 *   (c) ingress    the consumer with ROLE=ingress: verify, parse, durable insert, 204
 *   (d) full       the consumer with its worker handling every event it receives, against a
 *                  fast fake of the messaging API; afterwards, how long the backlog takes
 *   (e) duplicates one signed event, repeated: the dedupe path
 *   (f) postgres   (c) with the PostgreSQL store (when a server is available)
 *   (g) floor      the least a durable ingress does on the consumer's inbox: verify, JSON.parse,
 *                  the consumer's insert from a writer thread, 204 (floor-server.ts); run
 *                  after (b), it says what of (c)'s distance to (b) no request code can win
 *   (c traced)     (c) with tracing on, exporting to a loopback OTLP receiver, run right
 *                  after (c) so the two compare the machine with itself (when asked)
 * Each starts with a warm-up run (JIT, page cache, connections) whose figures are dropped; its
 * acknowledgements still count in the inbox check: every eventId answered 2xx must be a row.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PRODUCTION_START, startConsumerProcess } from './consumer-process.ts';
import { checkInbox, checkPostgresInbox, type InboxCheck } from './inbox-check.ts';
import { type LoadOptions, type LoadResult, runLoad } from './load.ts';
import { scratchFolder } from './scratch.ts';
import { startServerProcess } from './server-process.ts';
import { cpuPerRequest, readThreadCpu, type ThreadCpu } from './thread-cpu.ts';
import { createRequestPool, createRequestSource, type WebhookRequest } from './webhook-requests.ts';

export interface IngressOptions {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** A fresh PostgreSQL database for scenario (f); left out when there is none. */
  postgresDatabase?: () => Promise<string>;
  /** The OTLP endpoint of scenario (c traced); left out, it does not run. */
  otlpEndpoint?: string;
}

export interface IngressResult extends LoadResult {
  name: string;
  description: string;
  /** Non-2xx answers during the warm-up; they count as failures too. */
  warmupNon2xx: number;
  /** CPU time of the server process (all threads) over the measured run, share of one core. */
  serverCpu: number;
  /** Peak resident memory of the server process over the whole scenario, bytes. */
  serverPeakRssBytes: number;
  /**
   * The server's CPU per request answered over the measured run, by kind of thread, in
   * microseconds (thread-cpu.ts): which thread the rate waits for. The consumer's scenarios
   * and (g).
   */
  cpuPerRequest?: ThreadCpu;
  /** req/s over (b) express's req/s in this run. */
  ratioToExpress: number;
  /** A reference server, (a), (b) or (g), not the consumer: no consumer target counts it. */
  reference?: true;
  /** Requests the client had to build during the run (its pre-signed pool ran out). */
  builtDuringRun: number;
  inbox?: InboxCheck;
  /** (d) only: seconds until the worker had handled every event after the load stopped. */
  drainAfterSeconds?: number;
  /** (d) only: events still due when the wait for the backlog gave up (0 when it was handled). */
  backlogLeft?: number;
  /** (d) only: events the worker gave up on. */
  deadEvents?: number;
}

interface Server {
  url: string;
  cpuMicros(): Promise<number> | number;
  /** The server's CPU by kind of thread so far ((a) and (b) leave it out). */
  threadCpu?(): ThreadCpu;
  peakRssBytes(): number;
  stop(): Promise<void>;
}

type Measured = Omit<
  IngressResult,
  | 'name'
  | 'description'
  | 'ratioToExpress'
  | 'inbox'
  | 'drainAfterSeconds'
  | 'backlogLeft'
  | 'deadEvents'
>;

/** Upper bound of the rate any scenario reaches here; the pool holds that many per second. */
const POOL_RATE = 12_000;

/** The scenarios (a) to (f), and (c traced) apart when it ran: the report keeps it apart. */
export interface IngressScenarios {
  scenarios: IngressResult[];
  traced?: IngressResult;
}

export async function runIngressScenarios(options: IngressOptions): Promise<IngressScenarios> {
  const secret = randomBytes(24).toString('base64url');
  const dir = await scratchFolder('bench-ingress-');
  const poolSize = (options.warmupSeconds + options.durationSeconds) * POOL_RATE;
  const maxUnanswered = 2 * options.connections;
  const consumerEnv = (name: string, extra: Record<string, string> = {}) => ({
    WEBHOOK_SECRETS: secret,
    DATABASE_URL: `sqlite:${join(dir, `${name}.db`)}`,
    DOCUMENTS_DIR: join(dir, `${name}-documents`),
    SINK_JOURNAL_FILE: join(dir, `${name}-status-journal.jsonl`),
    API_BASE_URL: 'http://127.0.0.1:9',
    API_TOKEN: 'bench-token',
    // Problems only: a log line per request would measure pino, not the consumer.
    LOG_LEVEL: 'warn',
    ...extra,
  });
  const consumerServer = async (env: Record<string, string>): Promise<Server> => {
    const consumer = await startConsumerProcess(env);
    return {
      ...consumer,
      url: `${consumer.url}/webhooks`,
      threadCpu: () => readThreadCpu(consumer.pid),
    };
  };
  const bare = await measure(await startServerProcess('bare-server.ts', {}), pooled(), options);
  const express = await measure(
    await startServerProcess('express-server.ts', {}),
    pooled(),
    options,
  );
  const floorAcks = new Set<string>();
  const floorProcess = await startServerProcess(
    'floor-server.ts',
    { FLOOR_SECRET: secret, FLOOR_DATABASE: join(dir, 'floor.db') },
    // The consumer's memory settings (npm start's V8 flags), which decide how often it collects.
    { nodeArgs: PRODUCTION_START.nodeArgs.filter((arg) => arg.startsWith('--max-')) },
  );
  const floor = await measure(
    { ...floorProcess, threadCpu: () => readThreadCpu(floorProcess.pid) },
    pooled(floorAcks),
    options,
  );

  const ingressAcks = new Set<string>();
  const ingress = await measure(
    await consumerServer(consumerEnv('ingress', { ROLE: 'ingress' })),
    pooled(ingressAcks),
    options,
  );
  const tracedAcks = new Set<string>();
  const traced =
    options.otlpEndpoint === undefined
      ? undefined
      : await measure(
          await consumerServer(
            consumerEnv('traced', {
              ROLE: 'ingress',
              OTEL_EXPORTER_OTLP_ENDPOINT: options.otlpEndpoint,
            }),
          ),
          pooled(tracedAcks),
          options,
        );

  const api = await startServerProcess('fake-api.ts', {});
  const fullAcks = new Set<string>();
  let backlog = { seconds: 0, left: 0, dead: 0 };
  const full = await measure(
    await consumerServer(consumerEnv('full', { API_BASE_URL: api.url })),
    pooled(fullAcks),
    options,
    async () => {
      backlog = await waitForDrain(join(dir, 'full.db'));
    },
  );
  await api.stop();

  const event = createRequestSource(secret)();
  const duplicateAcks = new Set<string>();
  const duplicates = await measure(
    await consumerServer(consumerEnv('duplicates', { ROLE: 'ingress' })),
    { next: () => event, onAcknowledged: (id) => duplicateAcks.add(id), builtDuringRun: () => 0 },
    options,
  );

  let postgres: IngressResult | undefined;
  if (options.postgresDatabase !== undefined) {
    const databaseUrl = await options.postgresDatabase();
    const postgresAcks = new Set<string>();
    const measured = await measure(
      await consumerServer(consumerEnv('postgres', { ROLE: 'ingress', DATABASE_URL: databaseUrl })),
      pooled(postgresAcks),
      options,
    );
    postgres = {
      name: 'f postgres',
      description: 'consumer, ROLE=ingress, PostgreSQL store',
      ...measured,
      ratioToExpress: measured.requestsPerSecond / express.requestsPerSecond,
      inbox: await checkPostgresInbox(databaseUrl, postgresAcks, maxUnanswered),
    };
  }

  const ratio = (r: Measured) => r.requestsPerSecond / express.requestsPerSecond;
  const inbox = (name: string, acks: Set<string>, unanswered: number) =>
    checkInbox(join(dir, `${name}.db`), acks, unanswered);
  const scenarios: IngressResult[] = [
    {
      name: 'a bare',
      reference: true,
      description: 'bare node:http, read body, 204',
      ...bare,
      ratioToExpress: ratio(bare),
    },
    {
      name: 'b express',
      reference: true,
      description: 'express 5 + express.raw, 204',
      ...express,
      ratioToExpress: 1,
    },
    {
      name: 'c ingress',
      description: 'consumer, ROLE=ingress: verify, parse, durable insert, 204',
      ...ingress,
      ratioToExpress: ratio(ingress),
      inbox: inbox('ingress', ingressAcks, maxUnanswered),
    },
    {
      name: 'd with worker',
      description: 'consumer with its worker handling every event (fake messaging API)',
      ...full,
      ratioToExpress: ratio(full),
      inbox: inbox('full', fullAcks, maxUnanswered),
      drainAfterSeconds: backlog.seconds,
      backlogLeft: backlog.left,
      deadEvents: backlog.dead,
    },
    {
      name: 'e duplicates',
      description: 'consumer: one signed event repeated (dedupe, no new row)',
      ...duplicates,
      ratioToExpress: ratio(duplicates),
      inbox: inbox('duplicates', duplicateAcks, 0),
    },
    ...(postgres === undefined ? [] : [postgres]),
    {
      name: 'g floor',
      reference: true,
      description: 'the least a durable ingress does on this inbox (floor-server.ts)',
      ...floor,
      ratioToExpress: ratio(floor),
      inbox: inbox('floor', floorAcks, maxUnanswered),
    },
  ];
  return {
    scenarios,
    ...(traced === undefined
      ? {}
      : {
          traced: {
            name: 'c traced',
            description: '(c) with tracing on: OTLP/HTTP to a loopback receiver',
            ...traced,
            ratioToExpress: ratio(traced),
            inbox: inbox('traced', tracedAcks, maxUnanswered),
          },
        }),
  };

  function pooled(acknowledged?: Set<string>) {
    const pool = createRequestPool(secret, poolSize);
    return {
      next: pool.next,
      builtDuringRun: pool.builtDuringRun,
      ...(acknowledged === undefined
        ? {}
        : { onAcknowledged: (id: string) => acknowledged.add(id) }),
    };
  }
}

async function measure(
  server: Server,
  load: Pick<LoadOptions, 'next' | 'onAcknowledged'> & { builtDuringRun: () => number },
  options: IngressOptions,
  afterLoad?: () => Promise<void>,
): Promise<Measured> {
  try {
    const common = { next: load.next, url: server.url, connections: options.connections };
    const onAcknowledged = load.onAcknowledged;
    const withAcks = onAcknowledged === undefined ? common : { ...common, onAcknowledged };
    const warmup = await runLoad({ ...withAcks, durationSeconds: options.warmupSeconds });
    const cpuBefore = await server.cpuMicros();
    const threadsBefore = server.threadCpu?.();
    const started = performance.now();
    const result = await runLoad({ ...withAcks, durationSeconds: options.durationSeconds });
    const serverCpu =
      ((await server.cpuMicros()) - cpuBefore) / ((performance.now() - started) * 1000);
    const threadsAfter = server.threadCpu?.();
    await afterLoad?.();
    return {
      ...result,
      warmupNon2xx: warmup.non2xx,
      serverCpu,
      ...(threadsBefore === undefined || threadsAfter === undefined
        ? {}
        : {
            cpuPerRequest: cpuPerRequest(
              threadsBefore,
              threadsAfter,
              result.responses2xx + result.non2xx,
            ),
          }),
      serverPeakRssBytes: server.peakRssBytes(),
      builtDuringRun: load.builtDuringRun(),
    };
  } finally {
    await server.stop();
  }
}

/** With the backlog not shrinking for this long, the wait gives up (and the run fails). */
const STALL_MS = 30_000;

/**
 * Seconds until no event of the inbox at `path` is due or in hand (read-only, beside WAL); how
 * many were left if it stopped shrinking, and how many went dead.
 */
async function waitForDrain(
  path: string,
): Promise<{ seconds: number; left: number; dead: number }> {
  const started = performance.now();
  const db = new Database(path, { readonly: true });
  try {
    const count = (sql: string) => db.prepare<[], { n: number }>(sql);
    const due = count("SELECT COUNT(*) AS n FROM events WHERE state IN ('pending', 'processing')");
    const dead = count("SELECT COUNT(*) AS n FROM events WHERE state = 'dead'");
    let left = due.get()?.n ?? 0;
    let lastChange = performance.now();
    while (left > 0 && performance.now() - lastChange < STALL_MS) {
      await new Promise((r) => setTimeout(r, 100));
      const now = due.get()?.n ?? 0;
      if (now !== left) lastChange = performance.now();
      left = now;
    }
    return {
      seconds: (performance.now() - started) / 1000,
      left,
      dead: dead.get()?.n ?? 0,
    };
  } finally {
    db.close();
  }
}

export type { WebhookRequest };
