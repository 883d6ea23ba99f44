/**
 * The backlog drain: what a participant sees after an outage, when the service delivers hours
 * of invoices at once. N inbound invoices are pending at the embedded provider (in a process of
 * its own); their events (created, messageStatusChanged to pendingdelivery, deliveryNotified;
 * one in ten stored twice, as the service's duplicates are) are already in the inbox. Then the
 * consumer starts with its worker and handles them end to end: fetch the core document and the
 * JSON, import them with the default file importer (fsync), acknowledge. Measured: invoices
 * imported and acknowledged per second, from the consumer's start until the provider shows
 * every one delivered and the inbox holds nothing due. With `profile`, the consumer runs under
 * --cpu-prof and the result says where its time went, per thread.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { newEvent } from '../src/consumer/store/events.ts';
import { openStore } from '../src/consumer/store/open-store.ts';
import type { WebhookEnvelope } from '../src/protocol/index.ts';
import { consumerFilesEnv } from '../test/support/consumer-env.ts';
import { startConsumerProcess } from './consumer-process.ts';
import { summarizeProfiles, type ThreadSummary } from './profile-summary.ts';
import { startServerProcess } from './server-process.ts';

export interface DrainResult {
  /** Where the inbox was: `sqlite`, or `postgres` shared by `consumers` processes. */
  store: 'sqlite' | 'postgres';
  consumers: number;
  invoices: number;
  /** Events stored before the drain (duplicates stored once). */
  events: number;
  seconds: number;
  invoicesPerSecond: number;
  /** Share of one core, over the drain. */
  consumerCpu: number;
  providerCpu: number;
  consumerPeakRssBytes: number;
  /** Per thread of the consumer (main, then the SQLite writer), when profiled. */
  profile?: ThreadSummary[];
}

export async function runDrain(options: {
  invoices: number;
  profile?: boolean;
  env?: Record<string, string>;
  /**
   * The database to drain into (a PostgreSQL database, or a SQLite file holding history).
   * @default a fresh SQLite file
   */
  databaseUrl?: string;
  /** Consumer processes sharing the database (PostgreSQL only). @default 1 */
  consumers?: number;
}): Promise<DrainResult> {
  const postgres = options.databaseUrl?.startsWith('postgres') ?? false;
  const consumers = postgres ? (options.consumers ?? 1) : 1;
  const dir = await mkdtemp(join(tmpdir(), 'bench-drain-'));
  const provider = await startServerProcess('provider-server.ts', {});
  try {
    const file = join(dir, 'events.jsonl');
    await provider.command('seed', { count: options.invoices, file });
    const events = (await readFile(file, 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as WebhookEnvelope);

    const databasePath = join(dir, 'consumer.db');
    const databaseUrl = options.databaseUrl ?? `sqlite:${databasePath}`;
    const store = await openStore(databaseUrl);
    // A thousand at a time: all at once, the last would wait past the store's commit deadline.
    for (let offset = 0; offset < events.length; offset += 1000) {
      await Promise.all(
        events.slice(offset, offset + 1000).flatMap((envelope, j) => {
          const event = newEvent(envelope, Buffer.from(JSON.stringify(envelope)), Date.now());
          // One in ten twice: the duplicate is refused by eventId, as at the ingress.
          const copies = (offset + j) % 10 === 0 ? 2 : 1;
          return Array.from({ length: copies }, () => store.events.insert(event));
        }),
      );
    }
    await store.close();

    const profileDir = join(dir, 'profile');
    const providerCpuBefore = await provider.cpuMicros();
    const started = performance.now();
    const running = await Promise.all(
      Array.from({ length: consumers }, (_, i) =>
        startConsumerProcess(
          {
            WEBHOOK_SECRETS: 'bench-drain-secret-0123456789',
            API_BASE_URL: provider.url,
            API_TOKEN: 'sandbox-token',
            ...consumerFilesEnv(dir, databaseUrl),
            LOG_LEVEL: 'warn',
            ...options.env,
          },
          options.profile && i === 0 ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
        ),
      ),
    );
    const due = await dueCounter(databaseUrl);
    let consumerPeakRssBytes = 0;
    for (;;) {
      for (const consumer of running) {
        consumerPeakRssBytes = Math.max(consumerPeakRssBytes, consumer.peakRssBytes());
      }
      const delivered = await provider.command<number>('delivered');
      if (delivered === options.invoices && (await due.count()) === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    await due.close();
    const consumerCpu =
      running.reduce((sum, consumer) => sum + consumer.cpuMicros(), 0) / (seconds * 1e6);
    const providerCpu = ((await provider.cpuMicros()) - providerCpuBefore) / (seconds * 1e6);
    await Promise.all(running.map((consumer) => consumer.stop()));
    return {
      store: postgres ? 'postgres' : 'sqlite',
      consumers,
      invoices: options.invoices,
      events: events.length,
      seconds,
      invoicesPerSecond: options.invoices / seconds,
      consumerCpu,
      providerCpu,
      consumerPeakRssBytes,
      ...(options.profile
        ? { profile: summarizeProfiles(profileDir, process.env.BENCH_KEEP_PROFILE) }
        : {}),
    };
  } finally {
    await provider.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Events still due or in hand in the inbox at `databaseUrl`, read beside the consumers. */
async function dueCounter(databaseUrl: string) {
  const sql = "SELECT COUNT(*)::int AS n FROM events WHERE state IN ('pending', 'processing')";
  if (databaseUrl.startsWith('sqlite:')) {
    const inbox = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true });
    const statement = inbox.prepare<[], { n: number }>(sql.replace('::int', ''));
    return { count: async () => statement.get()?.n ?? 0, close: async () => inbox.close() };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return {
    count: async () => (await client.query<{ n: number }>(sql)).rows[0]?.n ?? 0,
    close: () => client.end(),
  };
}
