/**
 * Reconciliation: the safety net for everything webhooks can miss (an outage longer than the
 * service's two hours of retries, a dead-lettered event nobody replayed). SPEC.md 6.3 rule 5.
 *
 * 1. Lists inbound messages still pendingdelivery at the service (every page) and gives each
 *    the same treatment as a deliveryNotified event: import if not imported, then acknowledge.
 * 2. Refreshes local messages that have heard nothing for longer than the retry window and
 *    whose delivery status is not final, from GET /messages/:mid.
 *
 * Safe while the server runs: imports are idempotent on messageId, acknowledgements are
 * idempotent at the service, and status values are stored only when newer.
 */
import type { Logger } from 'pino';
import { WEBHOOK_RETRY_WINDOW_MS } from '../protocol/index.ts';
import type { ApiClient } from './api/index.ts';
import type { Importer } from './importer/index.ts';
import type { MessageStore } from './store/store.ts';
import { describeError } from './worker/errors.ts';
import { createInboundDelivery } from './worker/inbound-delivery.ts';
import { descriptorSnapshot } from './worker/message-snapshot.ts';

export interface ReconcileSummary {
  /** Inbound messages the service still lists as pendingdelivery. */
  found: number;
  /** Of those, imported by this run. */
  imported: number;
  /** Of those, acknowledged (mark-as-delivered) by this run. */
  acknowledged: number;
  /** Of those, rejected by the importer and marked as failed. */
  rejected: number;
  /** Local messages refreshed from the service. */
  refreshed: number;
  /** Messages this run could not handle (transient errors; the next run tries again). */
  failed: number;
}

export function createReconciler(deps: {
  api: ApiClient;
  importer: Importer;
  messages: MessageStore;
  logger: Logger;
  now: () => number;
  /** Silence after which a non-final message is refreshed. @default the webhook retry window */
  staleAfterMs?: number;
}) {
  const { api, messages, logger, now } = deps;
  const inbound = createInboundDelivery(deps);
  const staleAfterMs = deps.staleAfterMs ?? WEBHOOK_RETRY_WINDOW_MS;

  return async function reconcile(): Promise<ReconcileSummary> {
    const summary: ReconcileSummary = {
      found: 0,
      imported: 0,
      acknowledged: 0,
      rejected: 0,
      refreshed: 0,
      failed: 0,
    };

    for await (const descriptor of api.listAllMessages({
      status: 'pendingdelivery',
      transfer: 'inbound',
    })) {
      summary.found += 1;
      const messageId = descriptor.uniqueId;
      try {
        const outcome = await inbound.deliver(messageId, descriptor);
        if (outcome === 'rejected') summary.rejected += 1;
        else {
          if (outcome === 'imported') summary.imported += 1;
          summary.acknowledged += 1;
        }
      } catch (error) {
        summary.failed += 1;
        logger.error({ messageId, error: describeError(error) }, 'reconcile: could not deliver');
      }
    }

    for (const stale of await messages.listStale(now() - staleAfterMs, 1000)) {
      const key = { messageId: stale.messageId, transfer: stale.transfer };
      try {
        const { descriptor, servedAt } = await api.getMessage(stale.messageId, {
          transfer: stale.transfer,
        });
        // The fetch reflects every change up to when the service answered; events from before
        // then that arrive later are stale. Without the service's Date header, the local clock
        // stands in for it (it assumes clocks in sync, as the signature tolerance does).
        await messages.recordSnapshot(
          descriptorSnapshot(key, descriptor, servedAt ?? now(), 'fetch'),
          now(),
        );
        summary.refreshed += 1;
      } catch (error) {
        summary.failed += 1;
        logger.error({ ...key, error: describeError(error) }, 'reconcile: could not refresh');
      }
    }
    return summary;
  };
}

export function formatSummary(summary: ReconcileSummary): string {
  return Object.entries(summary)
    .map(([name, n]) => `${name}=${n}`)
    .join(' ');
}
