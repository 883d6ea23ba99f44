/**
 * Reconciliation: the safety net for everything webhooks can miss (an outage longer than the
 * service's two hours of retries, a dead-lettered event nobody replayed). docs/retries.md#pending-until-acknowledged.
 *
 * 1. Lists inbound messages still pendingdelivery at the service (every page) and gives each
 *    the same treatment as a deliveryNotified event: import if not imported, then acknowledge.
 * 2. Refreshes local messages that have heard nothing for longer than the retry window and
 *    whose delivery status is not final, from GET /messages/:mid.
 *
 * Each message is handled under its claim (store/store.ts), the one the worker takes for an
 * event, so reconciliation never works on a message beside the consumer's worker, a replica,
 * or another reconciliation: it waits its turn, and then finds the message already imported
 * (and only acknowledges it again) if the other handler got there first. A message still
 * claimed after the wait is left to its holder and counted as `busy`. So runs may overlap
 * each other and the consumer: each import happens once, in whichever process gets there
 * first, and each run counts only what it did itself. Messages are handled several at once
 * (WORKER_CONCURRENCY), each in its own turn.
 *
 * Traced (docs/operating.md#tracing): a `reconcile run` span per run, its counts set as
 * attributes once it ends, and under it a `reconcile message` span per pending message (the
 * import and acknowledgement calls under that) and a `reconcile refresh` span per stale one,
 * each with the message's id and what became of it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { type Context, context, type Span } from '@opentelemetry/api';
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import { type MessageDescriptor, WEBHOOK_RETRY_WINDOW_MS } from '../../protocol/index.ts';
import type { ApiClient } from '../api/index.ts';
import type { Importer } from '../importer/index.ts';
import type { ClaimStore } from '../store/claims.ts';
import type { EventStore } from '../store/events.ts';
import type { MessageKey, MessageRecord, MessageStore } from '../store/messages.ts';
import { ATTR, inSpan, recordError } from '../tracing/tracer.ts';
import { describeError } from '../worker/errors.ts';
import { createInboundDelivery, type InboundDelivery } from '../worker/inbound-delivery.ts';
import {
  descriptorSnapshot,
  fetchedAsOf,
  fetchNoticeId,
  withNotices,
} from '../worker/message-snapshot.ts';
import { createUnderClaim, type UnderClaim } from './under-claim.ts';

export interface ReconcileSummary {
  /** Inbound messages the service still lists as pendingdelivery. */
  found: number;
  /** Of those, imported by this run (import() said `imported`). */
  imported: number;
  /**
   * Of those, acknowledged (mark-as-delivered) by this run: the ones it imported, the ones the
   * importer said it had already, and the ones whose import was recorded earlier.
   */
  acknowledged: number;
  /** Of those, rejected by the importer and marked as failed. */
  rejected: number;
  /** Messages another handler held throughout the wait: left to it (the next run looks again). */
  busy: number;
  /** Local messages refreshed from the service. */
  refreshed: number;
  /** Messages this run could not handle (transient errors; the next run tries again). */
  failed: number;
  /**
   * Of those found, the ones import() answered `already_imported` (an earlier call, maybe
   * before a crash, had taken them); acknowledged by this run, not imported by it.
   */
  alreadyImported: number;
}

export interface ReconcilerOptions {
  api: ApiClient;
  importer: Importer;
  messages: MessageStore;
  /** Dead deliveryNotified events of a message this run acknowledges are closed. */
  events: Pick<EventStore, 'closeDead'>;
  claims: ClaimStore;
  logger: Logger;
  now: () => number;
  /** Names this run in the claims it takes. */
  holder: string;
  /** Lease of a message claim (CLAIM_LEASE_MS). */
  leaseMs: number;
  /** Deadline of one import (IMPORT_TIMEOUT_MS). */
  importTimeoutMs: number;
  /** Messages handled at once. @default 32 */
  concurrency?: number;
  /** Silence after which a non-final message is refreshed. @default the webhook retry window */
  staleAfterMs?: number;
  /**
   * How long to wait for a message another handler holds. Long enough for that handler to
   * finish an import. @default importTimeoutMs + 2 * leaseMs
   */
  claimWaitMs?: number;
  /** @default timers/promises setTimeout */
  sleep?: (ms: number) => Promise<unknown>;
}

export function createReconciler(options: ReconcilerOptions) {
  const { api, messages, now, leaseMs } = options;
  const staleAfterMs = options.staleAfterMs ?? WEBHOOK_RETRY_WINDOW_MS;
  const concurrency = options.concurrency ?? 32;
  const shared = {
    ...options,
    inbound: createInboundDelivery(options),
    underClaim: createUnderClaim({ ...options, sleep: options.sleep ?? ((ms) => delay(ms)) }),
    claimWaitMs: options.claimWaitMs ?? options.importTimeoutMs + 2 * leaseMs,
  };

  return function reconcile(): Promise<ReconcileSummary> {
    return inSpan(RECONCILE_SPANS.run, {}, async (span) => {
      // The run's span, passed to each message's explicitly: the queue starts a task from
      // whichever task's end made room, whose context is not the run's.
      const run: ReconcileRun = { ...shared, summary: emptySummary(), trace: context.active() };
      const queue = new PQueue({ concurrency });
      try {
        for await (const descriptor of api.listAllMessages({
          status: 'pendingdelivery',
          transfer: 'inbound',
        })) {
          run.summary.found += 1;
          await queue.onSizeLessThan(concurrency);
          void queue.add(() => deliverPending(run, descriptor));
        }
        await queue.onIdle();

        for (const stale of await messages.listStale(now() - staleAfterMs, 1000)) {
          await queue.onSizeLessThan(concurrency);
          void queue.add(() => refreshStale(run, stale));
        }
        await queue.onIdle();
        return run.summary;
      } finally {
        span.setAttributes(summaryAttributes(run.summary));
      }
    });
  };
}

/** Span names (docs/operating.md#tracing). */
export const RECONCILE_SPANS = {
  run: 'reconcile run',
  message: 'reconcile message',
  refresh: 'reconcile refresh',
} as const;

/** A run's counts as its span's attributes: `invoicing.reconcile.<count>`, snake_case. */
function summaryAttributes(summary: ReconcileSummary): Record<string, number> {
  return Object.fromEntries(
    Object.entries(summary).map(([name, n]) => [
      `invoicing.reconcile.${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`,
      n,
    ]),
  );
}

/** One message's span, under the run's; `work` tells its outcome. */
function messageSpan(
  run: ReconcileRun,
  name: string,
  key: MessageKey,
  work: (span: Span) => Promise<void>,
): Promise<void> {
  return inSpan(
    name,
    {
      parent: run.trace,
      attributes: { [ATTR.messageId]: key.messageId, [ATTR.transfer]: key.transfer },
    },
    work,
  );
}

/** What one run's work on each message uses, and the summary it counts into. */
interface ReconcileRun extends ReconcilerOptions {
  inbound: InboundDelivery;
  underClaim: UnderClaim;
  claimWaitMs: number;
  summary: ReconcileSummary;
  /** The run span's context: each message's span goes under it. */
  trace: Context;
}

/** A summary with every count at 0, in the order formatSummary prints them. */
function emptySummary(): ReconcileSummary {
  return {
    found: 0,
    imported: 0,
    acknowledged: 0,
    rejected: 0,
    busy: 0,
    refreshed: 0,
    failed: 0,
    alreadyImported: 0,
  };
}

/** A message the service still lists as pendingdelivery: a deliveryNotified's treatment. */
function deliverPending(run: ReconcileRun, descriptor: MessageDescriptor): Promise<void> {
  const { summary, logger, claimWaitMs } = run;
  const messageId = descriptor.uniqueId;
  const key = { messageId, transfer: 'inbound' as const };
  return messageSpan(run, RECONCILE_SPANS.message, key, async (span) => {
    try {
      const done = await run.underClaim(messageId, claimWaitMs, (claim) =>
        run.inbound.deliver(messageId, claim, { by: 'reconciliation', descriptor }),
      );
      // busy, or the InboundOutcome (imported, already_imported, acknowledged, rejected...).
      span.setAttribute(ATTR.outcome, done === undefined ? 'busy' : done.result);
      if (done === undefined) {
        summary.busy += 1;
        logger.warn({ messageId, claimWaitMs }, 'reconcile: message held by another handler');
      } else if (done.result === 'rejected') {
        summary.rejected += 1;
      } else {
        if (done.result === 'imported') summary.imported += 1;
        if (done.result === 'already_imported') summary.alreadyImported += 1;
        summary.acknowledged += 1;
      }
    } catch (error) {
      summary.failed += 1;
      span.setAttribute(ATTR.outcome, 'failed');
      recordError(span, error);
      logger.error({ messageId, error: describeError(error) }, 'reconcile: could not deliver');
    }
  });
}

/** A local message silent for longer than the retry window, whose delivery is not final. */
function refreshStale(run: ReconcileRun, stale: MessageRecord): Promise<void> {
  const { summary, logger } = run;
  const key = { messageId: stale.messageId, transfer: stale.transfer };
  return messageSpan(run, RECONCILE_SPANS.refresh, key, async (span) => {
    try {
      // A held message is being handled right now: it is not silent, so no wait.
      const done = await run.underClaim(stale.messageId, 0, () => refreshMessage(run, key));
      span.setAttribute(ATTR.outcome, done === undefined ? 'busy' : 'refreshed');
      if (done === undefined) summary.busy += 1;
      else summary.refreshed += 1;
    } catch (error) {
      summary.failed += 1;
      span.setAttribute(ATTR.outcome, 'failed');
      recordError(span, error);
      logger.error({ ...key, error: describeError(error) }, 'reconcile: could not refresh');
    }
  });
}

/** Fetches the message with GET /messages/:mid and records the answer as of when it was made. */
async function refreshMessage(
  { api, messages, now }: Pick<ReconcilerOptions, 'api' | 'messages' | 'now'>,
  key: MessageKey,
): Promise<void> {
  const { descriptor, servedAt } = await api.getMessage(key.messageId, {
    transfer: key.transfer,
  });
  // Applied to the side the answer names: a service that ignores `?transfer=` may
  // answer about the other side of a self-send (docs/decisions.md#transfer-query).
  const fetchedKey = { messageId: key.messageId, transfer: descriptor.transfer };
  // The fetch reflects every change up to when the service answered; events from
  // before then that arrive later are stale.
  const record = await messages.get(fetchedKey);
  const asOf = fetchedAsOf(servedAt, record, now());
  await messages.recordSnapshot(
    withNotices(
      descriptorSnapshot(fetchedKey, descriptor, asOf, 'fetch'),
      record,
      fetchNoticeId(fetchedKey, asOf),
    ),
    now(),
  );
}

/**
 * `name=n` pairs in the order reconcile() fills them in; scripts and cron logs read them, so a
 * new count is appended, never inserted.
 */
export function formatSummary(summary: ReconcileSummary): string {
  return Object.entries(summary)
    .map(([name, n]) => `${name}=${n}`)
    .join(' ');
}
