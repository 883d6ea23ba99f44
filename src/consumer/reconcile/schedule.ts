/**
 * Reconciliation on a cron schedule, for a deployment without a host cron (the compose
 * `reconcile-schedule` service). Each run is whatever `run` does; the command starts the
 * reconcile command as a child process, so a scheduled run is exactly a run started by cron or
 * by hand: its own connections, its summary line, its exit code.
 *
 * A run still going when the next one is due is never overlapped: that tick is skipped and
 * logged. (Overlapping runs would be harmless, each message being handled under its claim, but
 * they only wait on each other and spend API calls.)
 */
import { Cron } from 'croner';
import type { Logger } from 'pino';

export interface ReconcileScheduleOptions {
  /** Cron pattern: 5 fields, or 6 with seconds first (RECONCILE_SCHEDULE). */
  pattern: string;
  /** One reconciliation run; resolves with its exit code (0: all went well). */
  run: () => Promise<number>;
  logger: Logger;
}

export interface ReconcileSchedule {
  /** When the next run is due, or null when the pattern has none. */
  nextRun(): Date | null;
  /** No more runs; resolves when a run in progress has ended. */
  stop(): Promise<void>;
}

export function startReconcileSchedule(options: ReconcileScheduleOptions): ReconcileSchedule {
  const { logger } = options;
  let running: Promise<void> | undefined;
  const job = new Cron(options.pattern, () => {
    if (running !== undefined) {
      logger.warn('reconciliation due while the previous run still goes on: skipped');
      return;
    }
    const started = Date.now();
    logger.info('reconciliation run started');
    running = options
      .run()
      .then(
        (exitCode) => {
          const fields = { exitCode, durationMs: Date.now() - started };
          if (exitCode === 0) logger.info(fields, 'reconciliation run finished');
          // 128 + a signal number: stopped from outside (a shutdown), not a message's fault.
          else if (exitCode > 128) logger.warn(fields, 'reconciliation run stopped by a signal');
          else logger.error(fields, 'reconciliation run failed: some message needs attention');
        },
        (error: unknown) => logger.error({ err: error }, 'reconciliation run could not start'),
      )
      .finally(() => {
        running = undefined;
        logger.info({ nextRun: job.nextRun()?.toISOString() ?? null }, 'next reconciliation');
      });
  });
  logger.info(
    { schedule: options.pattern, nextRun: job.nextRun()?.toISOString() ?? null },
    'reconciliation scheduled',
  );
  return {
    nextRun: () => job.nextRun(),
    async stop() {
      job.stop();
      await running;
    },
  };
}
