/**
 * The soak's figures and verdict: one table row per sample as the run goes, the two samples
 * taken at rest (after the warm-up, after the run), and the reasons it fails, if any.
 *
 * Resident memory and handles are compared at rest, with the traffic paused and the inbox
 * empty: under load both move with the work in hand (bodies, connections, SQLite's cache),
 * which says nothing about a leak; what stays once the work is done does. The webhook
 * connections the service keeps alive (up to its pool's size, for KEEP_ALIVE_TIMEOUT_MS) are
 * subtracted from the handle counts: they are the client's to keep, and the consumer bounds
 * them (WEBHOOK_MAX_CONNECTIONS).
 */
import type { SoakAccount } from './soak-checks.ts';
import type { ProcessProbe } from './soak-probe.ts';

/** RSS at rest after the run may exceed RSS at rest after the warm-up by this share. */
export const RSS_GROWTH_LIMIT = 0.1;

export interface Sample extends ProcessProbe {
  /** Seconds since the consumer started. */
  seconds: number;
  phase: 'warm-up' | 'run' | 'rest';
  invoices: number;
  eventsPublished: number;
  duplicates: number;
  faults: number;
}

export interface Verdict {
  passed: boolean;
  failures: string[];
}

/** Descriptors and handles that are not the service's webhook connections. */
export function ownFds(sample: Sample): number {
  return sample.fds - sample.webhookConnections;
}
export function ownHandles(sample: Sample): number {
  return sample.activeHandles - sample.webhookConnections;
}

export function judge(options: {
  baseline: Sample;
  end: Sample;
  account: SoakAccount;
  drained: boolean;
  trafficErrors: string[];
  consumerExit: string | undefined;
}): Verdict {
  const { baseline, end, account } = options;
  const failures: string[] = [];
  const growth = end.rssBytes / baseline.rssBytes - 1;
  if (growth > RSS_GROWTH_LIMIT) {
    failures.push(
      `RSS grew ${percent(growth)} after the warm-up (${mib(baseline.rssBytes)} to ${mib(end.rssBytes)} MiB at rest), more than ${percent(RSS_GROWTH_LIMIT)}`,
    );
  }
  if (ownFds(end) > ownFds(baseline)) {
    failures.push(
      `open file descriptors grew after the warm-up: ${ownFds(baseline)} to ${ownFds(end)} at rest (webhook keep-alive connections not counted)`,
    );
  }
  if (ownHandles(end) > ownHandles(baseline)) {
    failures.push(
      `active handles grew after the warm-up: ${ownHandles(baseline)} to ${ownHandles(end)} at rest (webhook keep-alive connections not counted)`,
    );
  }
  if (!options.drained) {
    failures.push(
      'after the drain timeout the service still had deliveries pending, or the inbox events to handle',
    );
  }
  failures.push(...account.problems);
  failures.push(...options.trafficErrors);
  if (options.consumerExit !== undefined) failures.push(options.consumerExit);
  return { passed: failures.length === 0, failures };
}

const COLUMNS = [
  ['time', 6],
  ['phase', 7],
  ['RSS MiB', 8],
  ['heap MiB', 9],
  ['fds', 5],
  ['sockets', 8],
  ['webhook', 8],
  ['handles', 8],
  ['invoices', 9],
  ['events', 7],
  ['handled', 8],
  ['dups', 6],
  ['faults', 7],
] as const;

export function tableHeader(): string {
  return COLUMNS.map(([name, width]) => name.padStart(width)).join(' ');
}

export function tableRow(sample: Sample): string {
  const cells = [
    `${Math.round(sample.seconds)}s`,
    sample.phase,
    mib(sample.rssBytes),
    mib(sample.heapUsedBytes),
    String(sample.fds),
    String(sample.sockets),
    String(sample.webhookConnections),
    String(sample.activeHandles),
    String(sample.invoices),
    String(sample.eventsPublished),
    String((sample.inbox.done ?? 0) + (sample.inbox.skipped ?? 0)),
    String(sample.duplicates),
    String(sample.faults),
  ];
  return cells.map((cell, i) => cell.padStart(COLUMNS[i]?.[1] ?? 0)).join(' ');
}

export function formatSummary(options: {
  baseline: Sample;
  end: Sample;
  account: SoakAccount;
  faults: Record<string, number>;
  duplicates: number;
  duplicatesRefused: number;
  behind: number;
  drainSeconds: number;
  /** This process: the simulator, holding every message it was given. */
  runnerRssBytes: number;
}): string {
  const { baseline, end, account } = options;
  const faults = Object.entries(options.faults)
    .map(([kind, n]) => `${kind} x${n}`)
    .join(', ');
  return [
    `at rest after warm-up: RSS ${mib(baseline.rssBytes)} MiB, fds ${ownFds(baseline)}, handles ${ownHandles(baseline)} (plus ${baseline.webhookConnections} webhook keep-alive connections)`,
    `at rest after the run: RSS ${mib(end.rssBytes)} MiB (${signed(end.rssBytes / baseline.rssBytes - 1)}), fds ${ownFds(end)}, handles ${ownHandles(end)} (plus ${end.webhookConnections} webhook keep-alive connections)`,
    `events: ${account.eventsPublished} published, ${account.eventsHandled} handled, ${account.eventsMissing} missing, ${account.eventsUnhandled} not handled`,
    `duplicates: ${options.duplicates} sent again, ${options.duplicatesRefused} of them answered 503 (store locked)`,
    `invoices: ${account.invoices} sent, ${account.invoicesAcknowledged} acknowledged, ${account.importedOnce} imported once, ${account.importedTwice} twice, ${account.notImported} never, ${account.locationsMissing} with no import location, ${account.statusesDiffering} with statuses unlike the provider's`,
    `faults injected: ${faults === '' ? 'none' : faults}; seconds of traffic skipped (behind): ${options.behind}; drained in ${options.drainSeconds.toFixed(1)} s`,
    `the runner (the simulator, with every message it was given): RSS ${mib(options.runnerRssBytes)} MiB`,
  ].join('\n');
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

function signed(share: number): string {
  return `${share >= 0 ? '+' : ''}${percent(share)}`;
}
