/**
 * Reconciliation as a function, on a test consumer's own store and messaging API: the run
 * `npm run reconcile` makes, without its process, with a 30 s claim lease and a 10 s import
 * deadline.
 */
import { type Logger, pino } from 'pino';
import type { Importer } from '../../src/consumer/importer/index.ts';
import {
  createReconciler,
  type ReconcilerOptions,
} from '../../src/consumer/reconcile/reconciler.ts';
import type { TestConsumer } from './consumer.ts';

export function createTestReconciler(
  consumer: TestConsumer,
  options: {
    importer: Importer;
    /** @default silent */
    logger?: Logger;
  } & Pick<ReconcilerOptions, 'staleAfterMs'>,
) {
  const { importer, logger = pino({ level: 'silent' }), ...tuning } = options;
  return createReconciler({
    api: consumer.api,
    importer,
    messages: consumer.store.messages,
    events: consumer.store.events,
    claims: consumer.store.claims,
    logger,
    now: Date.now,
    holder: 'reconcile-test',
    leaseMs: 30_000,
    importTimeoutMs: 10_000,
    ...tuning,
  });
}
