/**
 * The backlog drain: what a participant sees after an outage, when the service delivers hours
 * of invoices at once. N inbound invoices are pending at the embedded provider (in a process of
 * its own); their events (created, messageStatusChanged to pendingdelivery, deliveryNotified;
 * one in ten stored twice, as the service's duplicates are) are already in the inbox. Then the
 * consumer starts with its worker and handles them end to end: fetch the core document and the
 * JSON, import them with the default file importer (fsync), acknowledge, and hand each status
 * change to the default status sink (the journal, src/sinks/journal.ts, one fsynced line per
 * notice). With `profile`, the consumer runs under --cpu-prof and the result says where its
 * time went, per thread.
 *
 * Two clocks, both from the consumers' start: the inbox is empty when the provider shows every
 * invoice delivered and no event is due or in hand; the drain is done when, besides, the sink
 * outbox holds no undelivered notice (read from the database, drain-progress.ts). The figure
 * (invoices/s, CPU per invoice) is taken when the drain is done: the notices still queued when
 * the inbox empties are work the consumer has yet to do. Afterwards every notice queued during
 * the drain must be delivered and, with the journal sink, in the journal file.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newEvent } from '../src/consumer/store/events.ts';
import { openStore } from '../src/consumer/store/open-store.ts';
import type { WebhookEnvelope } from '../src/protocol/index.ts';
import { consumerFilesEnv } from '../test/support/consumer-env.ts';
import { startConsumerProcess } from './consumer-process.ts';
import { openDrainProgress } from './drain-progress.ts';
import { type ImportCost, measureFileImport } from './import-cost.ts';
import { summarizeProfiles, type ThreadSummary } from './profile-summary.ts';
import { scratchFolder } from './scratch.ts';
import { startServerProcess } from './server-process.ts';

export interface DrainResult {
  /** Where the inbox was: `sqlite`, or `postgres` shared by `consumers` processes. */
  store: 'sqlite' | 'postgres';
  consumers: number;
  invoices: number;
  /** Events stored before the drain (duplicates stored once). */
  events: number;
  /** Seconds until every invoice was delivered at the provider and no event was due. */
  inboxEmptySeconds: number;
  /** Seconds until, besides, the sink had delivered the last status notice: the drain's clock. */
  seconds: number;
  /** Invoices over `seconds`. */
  invoicesPerSecond: number;
  /** Invoices the provider shows delivered at the end. */
  delivered: number;
  /** Status notices queued during the drain. */
  notices: number;
  /** Of those, notices not delivered by the sink at the end. */
  noticesPending: number;
  /** Of those, notices the journal file does not hold (journal sink only). */
  noticesMissingFromJournal?: number;
  /** Inbox events that went dead. */
  deadEvents: number;
  /** Share of one core, over `seconds`. */
  consumerCpu: number;
  providerCpu: number;
  /** CPU time per invoice (all threads of every consumer; the provider's process), in ms. */
  consumerCpuMsPerInvoice: number;
  providerCpuMsPerInvoice: number;
  /** The consumers' CPU per invoice when the inbox was empty, sink's backlog not included. */
  consumerCpuMsPerInvoiceAtInboxEmpty: number;
  consumerPeakRssBytes: number;
  /** Why the run stopped before the work was done (a consumer exited, nothing moved). */
  failure?: string;
  /** Per thread of the consumer (main, then the SQLite writer), when profiled. */
  profile?: ThreadSummary[];
  /**
   * The default file importer alone on this drain's documents, imported again in the runner
   * (import-cost.ts), when asked: its share of the consumer's CPU per invoice.
   */
  fileImport?: ImportCost;
}

/** Messages import-cost.ts imports again: enough for a steady figure, a second or two. */
const IMPORT_COST_MESSAGES = 1000;

/** With no invoice, event or notice moving for this long, the drain is given up as stuck. */
const STALL_MS = 30_000;
const POLL_MS = 50;

export async function runDrain(options: {
  invoices: number;
  profile?: boolean;
  /** Measure the file importer alone afterwards (import-cost.ts); a SQLite drain's documents. */
  importCost?: boolean;
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
  const dir = await scratchFolder('bench-drain-');
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
    const files = consumerFilesEnv(dir, databaseUrl);
    const env: Record<string, string> = { ...files, LOG_LEVEL: 'warn', ...options.env };
    const journal =
      (env.SINK_MODULE ?? 'journal') === 'journal' ? env.SINK_JOURNAL_FILE : undefined;
    const progress = await openDrainProgress(databaseUrl);
    // The store's clock: notices queued from here on are this drain's.
    const since = Date.now();
    const providerCpuBefore = await provider.cpuMicros();
    const started = performance.now();
    const starting = await Promise.allSettled(
      Array.from({ length: consumers }, (_, i) =>
        startConsumerProcess(
          {
            WEBHOOK_SECRETS: 'bench-drain-secret-0123456789',
            API_BASE_URL: provider.url,
            API_TOKEN: 'sandbox-token',
            ...env,
          },
          options.profile && i === 0 ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
        ),
      ),
    );
    const running = starting.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const refused = starting.find((s) => s.status === 'rejected');
    if (refused !== undefined) {
      await Promise.allSettled(running.map((consumer) => consumer.stop()));
      await progress.close();
      throw refused.reason;
    }
    const consumerCpuMicros = () => running.reduce((sum, c) => sum + c.cpuMicros(), 0);
    let consumerPeakRssBytes = 0;
    let inboxEmpty: { seconds: number; consumerCpuMicros: number } | undefined;
    let failure: string | undefined;
    let delivered = 0;
    let last = '';
    let lastChange = performance.now();
    for (;;) {
      const exited = running.find((consumer) => consumer.child.exitCode !== null);
      if (exited !== undefined) {
        failure =
          `a consumer exited with ${exited.child.exitCode} after ${delivered} of ` +
          `${options.invoices} invoices delivered: ${lastLines(exited.output())}`;
        break;
      }
      for (const consumer of running) {
        consumerPeakRssBytes = Math.max(consumerPeakRssBytes, consumer.peakRssBytes());
      }
      delivered = await provider.command<number>('delivered');
      const due = await progress.due();
      const pending = await progress.noticesPending();
      if (inboxEmpty === undefined && delivered === options.invoices && due === 0) {
        inboxEmpty = {
          seconds: (performance.now() - started) / 1000,
          consumerCpuMicros: consumerCpuMicros(),
        };
      }
      // Every notice is queued with the status write it reports, before its event is done:
      // once the inbox is empty, an empty outbox means the last notice is delivered.
      if (inboxEmpty !== undefined && pending === 0) break;
      const state = `${delivered} ${due} ${pending}`;
      if (state !== last) {
        last = state;
        lastChange = performance.now();
      } else if (performance.now() - lastChange > STALL_MS) {
        failure =
          `nothing moved for ${STALL_MS / 1000} s: ${delivered} of ${options.invoices} ` +
          `invoices delivered, ${due} events due, ${pending} notices pending`;
        break;
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const seconds = (performance.now() - started) / 1000;
    const consumerCpu = consumerCpuMicros();
    const providerCpu = (await provider.cpuMicros()) - providerCpuBefore;
    const stopped = await Promise.allSettled(running.map((consumer) => consumer.stop()));
    for (const outcome of stopped) {
      if (outcome.status === 'rejected' && failure === undefined) {
        failure = lastLines(String((outcome.reason as Error).message ?? outcome.reason));
      }
    }
    const outcome = await progress.outcome(since);
    await progress.close();
    const inJournal = journal === undefined ? undefined : await journalIds(journal);
    const fileImport =
      options.importCost && failure === undefined
        ? await measureFileImport(
            files.DOCUMENTS_DIR,
            join(dir, 'imported-again'),
            IMPORT_COST_MESSAGES,
          )
        : undefined;
    const perInvoice = (micros: number) => micros / 1000 / options.invoices;
    return {
      store: postgres ? 'postgres' : 'sqlite',
      consumers,
      invoices: options.invoices,
      events: events.length,
      inboxEmptySeconds: inboxEmpty?.seconds ?? seconds,
      seconds,
      invoicesPerSecond: options.invoices / seconds,
      delivered: await provider.command<number>('delivered'),
      notices: outcome.notices.length,
      noticesPending: outcome.notices.filter((n) => !n.delivered).length,
      ...(inJournal === undefined
        ? {}
        : {
            noticesMissingFromJournal: outcome.notices.filter((n) => !inJournal.has(n.id)).length,
          }),
      deadEvents: outcome.deadEvents,
      consumerCpu: consumerCpu / (seconds * 1e6),
      providerCpu: providerCpu / (seconds * 1e6),
      consumerCpuMsPerInvoice: perInvoice(consumerCpu),
      providerCpuMsPerInvoice: perInvoice(providerCpu),
      consumerCpuMsPerInvoiceAtInboxEmpty: perInvoice(inboxEmpty?.consumerCpuMicros ?? consumerCpu),
      consumerPeakRssBytes,
      ...(failure === undefined ? {} : { failure }),
      ...(fileImport === undefined ? {} : { fileImport }),
      ...(options.profile && failure === undefined
        ? { profile: summarizeProfiles(profileDir, process.env.BENCH_KEEP_PROFILE) }
        : {}),
    };
  } finally {
    await provider.stop();
  }
}

/** The notice ids of the journal's lines (a partial line left by a crash has none). */
async function journalIds(file: string): Promise<Set<string>> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const ids = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const id = (JSON.parse(line) as { id?: unknown }).id;
      if (typeof id === 'string') ids.add(id);
    } catch {
      // Not a whole line: it holds no notice.
    }
  }
  return ids;
}

/** The end of a process's output, for a one-line reason. */
function lastLines(output: string): string {
  return output.trim().split('\n').slice(-3).join(' | ').slice(0, 500);
}
