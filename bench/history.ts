/**
 * `npm run bench -- --only history --history <events>` (issue 18): the same probes on an empty
 * store and on one holding a year of history, then a retention run over that history while
 * webhooks keep arriving. For SQLite and, when a server is available, PostgreSQL.
 *
 * History: `events` events spread evenly over the last 365 days, five per message (created,
 * two status changes, deliveryNotified, a lifecycle change; bodies as the service sends them),
 * each message delivered and imported, two status changes recorded per message. Every event is
 * finished but one in a thousand, left dead (see DEAD_EVERY).
 * It is written straight into the database (through the consumer it would take hours), then
 * put on disk as a year-old store would be (the SQLite file fsynced, PostgreSQL vacuumed and
 * checkpointed): otherwise the probes that follow would share the disk with the writeback of
 * gigabytes written a minute earlier.
 *
 * Probes, each with the consumer as production runs it (retention off, so the history stays):
 * ingress req/s (ROLE=ingress, keep-alive load), the backlog drain (invoices/s, against the
 * embedded provider), GET /metrics, GET /admin/events?state=done (first page, and twenty pages
 * deep by cursor; twenty samples each after one unmeasured request per path, reported apart),
 * and in this process the worker's claim with 2,300 events due and reconciliation's stale scan.
 * The empty store and the history are probed in rounds, back to back (see runOne); the empty
 * store keeps what earlier rounds' drains left in it (a few thousand events per round).
 *
 * Retention: the consumer (ROLE=all, RETENTION_INTERVAL_SECONDS=1) prunes the history with the
 * default policy while a webhook arrives every 10 ms; reported: the run's duration, what it
 * removed, its batches (the longest, from the consumer's log; how many over 10 and 20 ms, from
 * its histogram), the webhooks' latency meanwhile, and the store's size before and after. The history
 * arrives at events/365 a day; retention keeps a fixed number of days, so the size after a run
 * scales with the daily rate: the bound at 25,000 events a day is that size times
 * 25,000 / (events/365).
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { newEvent } from '../src/consumer/store/events.ts';
import { openStore } from '../src/consumer/store/open-store.ts';
import type { Store } from '../src/consumer/store/store.ts';
import { consumerFilesEnv } from '../test/support/consumer-env.ts';
import { runStatement } from '../test/support/postgres-database.ts';
import { type ConsumerProcess, startConsumerProcess } from './consumer-process.ts';
import { runDrain } from './drain.ts';
import { runLoad } from './load.ts';
import { scratchFolder } from './scratch.ts';
import { startServerProcess } from './server-process.ts';
import {
  createRequestPool,
  createRequestSource,
  deliveryNotified,
  messageStatusChanged,
} from './webhook-requests.ts';
import { drainShortfall } from './work-done.ts';

const DAY_MS = 86_400_000;
const YEAR_DAYS = 365;
const SECRET = 'bench-history-secret-0123456789';
const ADMIN_TOKEN = 'bench-history-admin-token-0123456789abcdef';

export interface Latency {
  p50Ms: number;
  maxMs: number;
}

export interface HistoryProbe {
  ingressPerSecond: number;
  ingressP99Ms: number;
  drainPerSecond: number;
  metrics: Latency;
  adminDone: Latency;
  /** The twentieth page of GET /admin/events?state=done, followed by cursor. */
  adminDeep: Latency;
  /**
   * The consumer's first answer on each path, not among the samples above: it also compiles the
   * handler's code and plans its statements, once per process.
   */
  firstRequest: { metricsMs: number; adminMs: number };
  claim: Latency;
  staleScan: Latency;
  /**
   * Store inserts per second (50 at a time, no HTTP) with the service's random eventIds and
   * with time-ordered ones: while the inbox was keyed by the eventId alone, where a new eventId
   * landed in that index separated ingress with history from ingress on an empty store
   * (BENCHMARKS.md, "A year of history"); with the (occurredAt, eventId) key the two agree.
   */
  inserts: { randomIdsPerSecond: number; orderedIdsPerSecond: number };
  sizeBytes: number;
}

export interface HistoryResult {
  store: 'sqlite' | 'postgres';
  events: number;
  fillSeconds: number;
  /** Over the rounds: rates and p50s their median, maxima the largest. */
  empty: HistoryProbe;
  history: HistoryProbe;
  /** Each round probes both stores back to back (see runOne). */
  rounds: { empty: HistoryProbe; history: HistoryProbe }[];
  /** Absent with --no-retention. */
  retention?: {
    seconds: number;
    removed: Record<string, number>;
    webhooks: number;
    webhookP50Ms: number;
    webhookP99Ms: number;
    webhookMaxMs: number;
    non204: number;
    sizeBeforeBytes: number;
    sizeAfterBytes: number;
    /** sizeAfterBytes scaled to 25,000 events a day. */
    boundAt25kPerDayBytes: number;
    /**
     * The run's batches: how many, the longest (how long it held the store, and its step), and
     * how many held it longer than 10 and 20 ms (retention_batch_duration_seconds).
     */
    batches: {
      count: number;
      longestMs: number;
      longestStep: string;
      over10Ms: number;
      over20Ms: number;
    };
  };
}

export async function runHistory(options: {
  events: number;
  invoices: number;
  durationSeconds: number;
  /** Rounds of probes, each on both stores. */
  rounds: number;
  /** Whether to run the retention pass over the history (about 8 minutes per million events). */
  retention: boolean;
  /** Seconds of each store-insert probe. @default 5 */
  insertSeconds?: number;
  /** A fresh PostgreSQL database, when a server is available. */
  postgresDatabase?: () => Promise<string>;
}): Promise<HistoryResult[]> {
  const results: HistoryResult[] = [];
  const dir = await scratchFolder('bench-history-');
  const sqliteUrl = (name: string) => `sqlite:${join(dir, `${name}.db`)}`;
  results.push(await runOne('sqlite', sqliteUrl, dir, options));
  if (options.postgresDatabase !== undefined) {
    const create = options.postgresDatabase;
    results.push(await runOne('postgres', () => create(), dir, options));
  }
  return results;
}

async function runOne(
  store: 'sqlite' | 'postgres',
  database: (name: string) => string | Promise<string>,
  dir: string,
  options: {
    events: number;
    invoices: number;
    durationSeconds: number;
    rounds: number;
    retention: boolean;
    insertSeconds?: number;
  },
): Promise<HistoryResult> {
  const emptyUrl = await database('empty');
  await migrate(emptyUrl);
  const url = await database('history');
  await migrate(url);
  console.error(`history (${store}): writing ${options.events.toLocaleString()} events of history`);
  const fillStarted = performance.now();
  await fill(url, options.events, Date.now());
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  console.error(`history (${store}): written in ${fillSeconds.toFixed(0)} s`);
  // The machine's speed drifts by a third over minutes (the same drain on the same empty store
  // ran at 332, 263 and 217 invoices/s in a row), so each round probes the two stores back to
  // back, the empty one first in the first, third, ... round and second in the others, and the
  // ratios are taken per round: probing the empty store once before the fill and the history once after compared
  // two machines minutes apart.
  const rounds: HistoryResult['rounds'] = [];
  for (let i = 0; i < options.rounds; i++) {
    console.error(`history (${store}): round ${i + 1} of ${options.rounds}`);
    const emptyFirst = i % 2 === 0;
    const first = await probe(emptyFirst ? emptyUrl : url, dir, options);
    const second = await probe(emptyFirst ? url : emptyUrl, dir, options);
    rounds.push(emptyFirst ? { empty: first, history: second } : { empty: second, history: first });
  }
  const result = {
    store,
    events: options.events,
    fillSeconds,
    empty: combine(rounds.map((r) => r.empty)),
    history: combine(rounds.map((r) => r.history)),
    rounds,
  };
  if (!options.retention) return result;
  console.error(`history (${store}): a retention run while webhooks arrive`);
  return { ...result, retention: await prune(url, dir, options.events) };
}

async function migrate(url: string) {
  await (await openStore(url)).close();
}

function consumerEnv(url: string, dir: string, extra: Record<string, string> = {}) {
  return {
    WEBHOOK_SECRETS: SECRET,
    API_BASE_URL: 'http://127.0.0.1:9',
    API_TOKEN: 'bench-token',
    ...consumerFilesEnv(dir, url),
    ADMIN_TOKEN,
    RETENTION_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

async function probe(
  url: string,
  dir: string,
  options: { invoices: number; durationSeconds: number; insertSeconds?: number },
): Promise<HistoryProbe> {
  const consumer = await startConsumerProcess(consumerEnv(url, dir, { ROLE: 'ingress' }));
  let load: Awaited<ReturnType<typeof runLoad>>;
  let http: Pick<HistoryProbe, 'metrics' | 'adminDone' | 'adminDeep' | 'firstRequest'>;
  try {
    const pool = createRequestPool(SECRET, (options.durationSeconds + 1) * 8000);
    const target = { url: `${consumer.url}/webhooks`, connections: 50, next: pool.next };
    await runLoad({ ...target, durationSeconds: 1 });
    load = await runLoad({ ...target, durationSeconds: options.durationSeconds });
    // The load's events are not history (the ingress role leaves them pending): counted by
    // /metrics, they would measure that backlog instead; and the drain waits for every one.
    await execute(url, "DELETE FROM events WHERE state = 'pending'");
    http = await httpProbes(consumer);
  } finally {
    await consumer.stop();
  }
  const inProcess = await storeProbes(url, options.insertSeconds ?? INSERT_SECONDS);
  await execute(url, "DELETE FROM events WHERE event_id LIKE 'bench-due-%'");
  const drain = await runDrain({
    invoices: options.invoices,
    databaseUrl: url,
    env: { RETENTION_ENABLED: 'false' },
  });
  // A drain that did not finish measured something else: no figure comes from it.
  const shortfall = drainShortfall(drain);
  if (shortfall !== undefined) {
    throw new Error(`the drain on ${url}: ${shortfall.replace(/^FAIL: /, '')}`);
  }
  return {
    ingressPerSecond: load.requestsPerSecond,
    ingressP99Ms: load.latencyP99Ms,
    drainPerSecond: drain.invoicesPerSecond,
    ...http,
    ...inProcess,
    sizeBytes: await sizeOf(url),
  };
}

async function httpProbes(consumer: ConsumerProcess) {
  const get = async (path: string) => {
    const started = performance.now();
    const res = await fetch(`${consumer.url}${path}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const body = await res.text();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${body}`);
    return { ms: performance.now() - started, body };
  };
  const firstRequest = {
    metricsMs: round((await get('/metrics')).ms),
    adminMs: round((await get('/admin/events?state=done&limit=50')).ms),
  };
  const metrics: number[] = [];
  const adminDone: number[] = [];
  const adminDeep: number[] = [];
  for (let i = 0; i < 20; i++) {
    metrics.push((await get('/metrics')).ms);
    const first = await get('/admin/events?state=done&limit=50');
    adminDone.push(first.ms);
    let next = (JSON.parse(first.body) as { next: string | null }).next;
    for (let page = 1; page < 20 && next !== null; page++) {
      const deeper = await get(`/admin/events?state=done&limit=50&after=${next}`);
      if (page === 19) adminDeep.push(deeper.ms);
      next = (JSON.parse(deeper.body) as { next: string | null }).next;
    }
  }
  return {
    metrics: latency(metrics),
    adminDone: latency(adminDone),
    adminDeep: latency(adminDeep),
    firstRequest,
  };
}

/** The worker's claim with 2,300 events due, and reconciliation's stale scan. */
async function storeProbes(
  url: string,
  insertSeconds: number,
): Promise<Pick<HistoryProbe, 'claim' | 'staleScan' | 'inserts'>> {
  const store = await openStore(url);
  try {
    const inserts = {
      randomIdsPerSecond: await insertRate(store, () => randomUUID(), insertSeconds),
      orderedIdsPerSecond: await insertRate(store, orderedIds(), insertSeconds),
    };
    // Pending, like the load's events: not history (see probe).
    await execute(url, "DELETE FROM events WHERE state = 'pending'");
    const now = Date.now();
    const body = Buffer.from(JSON.stringify(messageStatusChanged(randomUUID(), '')));
    // A hundred at a time: all at once would wait past the commit deadline of each.
    for (let chunk = 0; chunk < 2300; chunk += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) => chunk + j).map((i) =>
          store.events.insert({
            eventId: `bench-due-${randomUUID()}`,
            action: 'messageStatusChanged',
            transfer: 'inbound',
            messageId: `bench-due-${i}`,
            party: '0192:999999999',
            occurredAt: new Date(now).toISOString(),
            test: false,
            flag: null,
            body,
            receivedAt: now - 1000,
          }),
        ),
      );
    }
    const claim: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const claimed = await store.events.claimDue({
        now,
        limit: 32,
        leaseMs: 60_000,
        holder: 'bench',
      });
      claim.push(performance.now() - started);
      for (const event of claimed) await store.events.settle(event, { state: 'done' }, now);
    }
    const staleScan: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      await store.messages.listStale(now - 3600_000, 100);
      staleScan.push(performance.now() - started);
    }
    return { claim: latency(claim), staleScan: latency(staleScan), inserts };
  } finally {
    await store.close();
  }
}

const INSERT_SECONDS = 5;

/** Inserts per second for `seconds`, fifty at a time, as fifty webhooks would. */
async function insertRate(store: Store, eventId: () => string, seconds: number): Promise<number> {
  const body = Buffer.from(JSON.stringify(messageStatusChanged(randomUUID(), '')));
  const deadline = performance.now() + seconds * 1000;
  let inserted = 0;
  const client = async () => {
    while (performance.now() < deadline) {
      const now = Date.now();
      const envelope = messageStatusChanged(randomUUID(), new Date(now).toISOString());
      await store.events.insert(newEvent({ ...envelope, eventId: eventId() }, body, now));
      inserted += 1;
    }
  };
  await Promise.all(Array.from({ length: 50 }, client));
  return inserted / seconds;
}

/** eventIds that sort in the order they are made, as a UUIDv7 would. */
function orderedIds(): () => string {
  let sequence = 0;
  return () =>
    `${Date.now().toString(16).padStart(12, '0')}-${(sequence++).toString(16).padStart(8, '0')}-${randomUUID().slice(22)}`;
}

/** The default policy over the history, in the consumer, while webhooks arrive. */
async function prune(
  url: string,
  dir: string,
  events: number,
): Promise<NonNullable<HistoryResult['retention']>> {
  const sizeBeforeBytes = await sizeOf(url);
  const api = await startServerProcess('fake-api.ts', {});
  const consumer = await startConsumerProcess(
    consumerEnv(url, dir, {
      API_BASE_URL: api.url,
      RETENTION_ENABLED: 'true',
      RETENTION_INTERVAL_SECONDS: '1',
      // For the `retention run done` line, which names the run's longest batch.
      LOG_LEVEL: 'info',
    }),
  );
  const source = createRequestSource(SECRET);
  const latencies: number[] = [];
  let non204 = 0;
  const started = performance.now();
  // About 8 minutes a million events (header): an hour a million is a run that is stuck.
  const deadlineMs = Math.max(120, (events / 1e6) * 3600) * 1000;
  let removed: Record<string, number> = {};
  let histogram = '';
  try {
    const inFlight = new Set<Promise<void>>();
    for (let count = 1; ; count++) {
      const request = source();
      const sent = performance.now();
      const answer = fetch(`${consumer.url}/webhooks`, {
        method: 'POST',
        body: request.body,
        headers: request.headers,
      }).then(async (res) => {
        await res.arrayBuffer();
        latencies.push(performance.now() - sent);
        if (res.status !== 204) non204 += 1;
      });
      inFlight.add(answer);
      void answer.finally(() => inFlight.delete(answer));
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (performance.now() - started > deadlineMs) {
        throw new Error(`the retention run did not finish in ${deadlineMs / 1000} s`);
      }
      if (count % 50 === 0) {
        const metrics = await (await fetch(`${consumer.url}/metrics`)).text();
        removed = prunedSoFar(metrics);
        // The run's last step reports itself when the run is through.
        if ('pages' in removed) {
          histogram = metrics;
          break;
        }
      }
    }
    await Promise.all(inFlight);
  } finally {
    await consumer.stop();
    await api.stop();
  }
  const done = consumer
    .output()
    .split('\n')
    .find((line) => line.includes('"retention run done"'));
  const run = JSON.parse(done ?? '{}') as {
    batches?: number;
    longestBatchMs?: number;
    longestBatchStep?: string;
  };
  const seconds = (performance.now() - started) / 1000;
  const sizeAfterBytes = await sizeOf(url);
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) =>
    round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0);
  return {
    seconds,
    removed,
    webhooks: latencies.length,
    webhookP50Ms: at(0.5),
    webhookP99Ms: at(0.99),
    webhookMaxMs: round(sorted.at(-1) ?? 0),
    non204,
    sizeBeforeBytes,
    sizeAfterBytes,
    boundAt25kPerDayBytes: Math.round((sizeAfterBytes * 25_000) / (events / YEAR_DAYS)),
    batches: {
      count: run.batches ?? 0,
      longestMs: run.longestBatchMs ?? 0,
      longestStep: run.longestBatchStep ?? '',
      over10Ms: batchesOver(histogram, '0.01'),
      over20Ms: batchesOver(histogram, '0.02'),
    },
  };
}

/** Batches of the histogram longer than `le` seconds, over every step. */
function batchesOver(metrics: string, le: string): number {
  const sum = (pattern: RegExp) =>
    [...metrics.matchAll(pattern)].reduce((total, m) => total + Number(m[1]), 0);
  return (
    sum(/^retention_batch_duration_seconds_count\{[^}]*\} (\d+)/gm) -
    sum(new RegExp(`^retention_batch_duration_seconds_bucket\\{le="${le}",[^}]*\\} (\\d+)`, 'gm'))
  );
}

function prunedSoFar(text: string): Record<string, number> {
  return Object.fromEntries(
    [...text.matchAll(/^retention_pruned_total\{step="(\w+)"\} (\d+)/gm)].map((m) => [
      m[1] as string,
      Number(m[2]),
    ]),
  );
}

/**
 * One message in DEAD_EVERY has its second status event dead (failed for the last allowed
 * time; the message was delivered and acknowledged all the same): retention deletes such an
 * event with the finished ones (RETENTION_EVENT_DAYS), its message being settled.
 */
const DEAD_EVENT = 3;
const DEAD_EVERY = 200;

/** Five events per message over the last 365 days, all handled; see the header. */
export async function fill(url: string, events: number, now: number) {
  const messages = Math.ceil(events / 5);
  const spacing = (YEAR_DAYS * DAY_MS) / messages;
  const start = now - YEAR_DAYS * DAY_MS;
  const delivery = JSON.stringify(deliveryNotified('{{m}}', '2026-01-01T00:00:00.000Z'));
  const status = JSON.stringify(messageStatusChanged('{{m}}', '2026-01-01T00:00:00.000Z'));
  const bodies = [status, status, delivery, status, status].map((b) => Buffer.from(b));
  const actions = [
    'created',
    'messageStatusChanged',
    'deliveryNotified',
    'messageStatusChanged',
    'lifecycleStatusChanged',
  ];
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -1000000');
    const event = db.prepare(`
      INSERT INTO events (event_id, action, transfer, message_id, party, occurred_at, test, body,
                          received_at, state, attempts, next_attempt_at, updated_at)
      VALUES (?, ?, 'inbound', ?, '0192:999999999', ?, 0, ?, ?, ?, 1, ?, ?)`);
    const message = db.prepare(`
      INSERT INTO messages (message_id, transfer, document_no, validation_status,
                            delivery_status, delivery_at, lifecycle_status, lifecycle_at,
                            imported_at, import_location, acknowledged_at, acknowledgement,
                            last_event_at, created_at, updated_at)
      VALUES (?, 'inbound', 'INV-2026-004211', 'approved', 'delivered', ?, 'paid', ?, ?, ?, ?,
              'delivered', ?, ?, ?)`);
    const change = db.prepare(`
      INSERT INTO status_changes (event_id, message_id, transfer, kind, former_value, new_value,
                                  occurred_at, outcome, recorded_at)
      VALUES (?, ?, 'inbound', 'delivery', ?, ?, ?, 'applied', ?)`);
    const batch = db.transaction((from: number, to: number) => {
      for (let m = from; m < to; m++) {
        const at = Math.floor(start + m * spacing);
        const messageId = randomUUID();
        for (let k = 0; k < 5; k++) {
          const eventId = randomUUID();
          const occurredAt = new Date(at + k).toISOString();
          const state = k === DEAD_EVENT && m % DEAD_EVERY === 0 ? 'dead' : 'done';
          event.run(
            eventId,
            actions[k],
            messageId,
            occurredAt,
            bodies[k],
            at + k,
            state,
            at + k,
            at + k,
          );
          if (k === 1 || k === 3) {
            const [former, next] =
              k === 1 ? ['', 'pendingdelivery'] : ['pendingdelivery', 'delivered'];
            change.run(eventId, messageId, former, next, at + k, at + k);
          }
        }
        message.run(messageId, at, at, at, `/documents/inbound/${messageId}`, at, at, at, at);
      }
    });
    for (let m = 0; m < messages; m += 20_000) batch(m, Math.min(messages, m + 20_000));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const fd = openSync(url.slice('sqlite:'.length), 'r+');
    fsyncSync(fd);
    closeSync(fd);
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let m = 0; m < messages; m += 50_000) {
      const to = Math.min(messages, m + 50_000);
      await client.query(
        `WITH n AS (
           SELECT g, gen_random_uuid()::text AS message_id,
                  ($3::bigint + floor(g * $4::float8))::bigint AS at
             FROM generate_series($1::int, $2::int - 1) AS g),
         e AS (
           INSERT INTO events (event_id, action, transfer, message_id, party, occurred_at, test,
                               body, received_at, state, attempts, next_attempt_at, updated_at)
           SELECT gen_random_uuid()::text, ($5::text[])[k + 1], 'inbound', message_id,
                  '0192:999999999',
                  to_char(to_timestamp((at + k) / 1000.0) AT TIME ZONE 'UTC',
                          'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), false,
                  CASE WHEN k = 2 THEN $6::bytea ELSE $7::bytea END,
                  at + k,
                  CASE WHEN k = $8 AND g % $9 = 0 THEN 'dead' ELSE 'done' END,
                  1, at + k, at + k
             FROM n, generate_series(0, 4) AS k
         ),
         c AS (
           INSERT INTO status_changes (event_id, message_id, transfer, kind, former_value,
                                       new_value, occurred_at, outcome, recorded_at)
           SELECT gen_random_uuid()::text, message_id, 'inbound', 'delivery',
                  CASE WHEN k = 1 THEN '' ELSE 'pendingdelivery' END,
                  CASE WHEN k = 1 THEN 'pendingdelivery' ELSE 'delivered' END,
                  at + k, 'applied', at + k
             FROM n, (VALUES (1), (3)) AS v(k)
         )
         INSERT INTO messages (message_id, transfer, document_no, validation_status,
                               delivery_status, delivery_at, lifecycle_status, lifecycle_at,
                               imported_at, import_location, acknowledged_at, acknowledgement,
                               last_event_at, created_at, updated_at)
         SELECT message_id, 'inbound', 'INV-2026-004211', 'approved', 'delivered', at, 'paid',
                at, at, '/documents/inbound/' || message_id, at, 'delivered', at, at, at
           FROM n`,
        [m, to, start, spacing, actions, bodies[2], bodies[0], DEAD_EVENT, DEAD_EVERY],
      );
    }
    await client.query('VACUUM ANALYZE');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

async function execute(url: string, sql: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length));
    db.exec(sql);
    db.close();
    return;
  }
  await runStatement(url, sql);
}

/** The database's size on disk: the SQLite file (WAL written back), or pg_database_size. */
async function sizeOf(url: string): Promise<number> {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    const db = new Database(path);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    return statSync(path).size;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ size: string }>(
      'SELECT pg_database_size(current_database())::text AS size',
    );
    return Number(rows[0]?.size ?? 0);
  } finally {
    await client.end();
  }
}

/** Rates and p50s: the median over the probes; maxima: the largest; size: the last. */
function combine(probes: HistoryProbe[]): HistoryProbe {
  const mid = (pick: (p: HistoryProbe) => number) => median(probes.map(pick));
  const both = (pick: (p: HistoryProbe) => Latency): Latency => ({
    p50Ms: round(mid((p) => pick(p).p50Ms)),
    maxMs: Math.max(...probes.map((p) => pick(p).maxMs)),
  });
  return {
    ingressPerSecond: mid((p) => p.ingressPerSecond),
    ingressP99Ms: mid((p) => p.ingressP99Ms),
    drainPerSecond: mid((p) => p.drainPerSecond),
    metrics: both((p) => p.metrics),
    adminDone: both((p) => p.adminDone),
    adminDeep: both((p) => p.adminDeep),
    firstRequest: {
      metricsMs: Math.max(...probes.map((p) => p.firstRequest.metricsMs)),
      adminMs: Math.max(...probes.map((p) => p.firstRequest.adminMs)),
    },
    claim: both((p) => p.claim),
    staleScan: both((p) => p.staleScan),
    inserts: {
      randomIdsPerSecond: mid((p) => p.inserts.randomIdsPerSecond),
      orderedIdsPerSecond: mid((p) => p.inserts.orderedIdsPerSecond),
    },
    sizeBytes: probes.at(-1)?.sizeBytes ?? 0,
  };
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[half] ?? 0)
    : ((sorted[half - 1] ?? 0) + (sorted[half] ?? 0)) / 2;
}

function latency(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50Ms: round(sorted[Math.floor(sorted.length / 2)] ?? 0),
    maxMs: round(sorted.at(-1) ?? 0),
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
