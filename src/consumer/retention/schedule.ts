/**
 * Runs the pruner now and then: first shortly after start (not at once, so a restart loop
 * does not prune in a loop too), then every `intervalMs`. A failed run (the store away) is a
 * warning; the next one tries again.
 */
import type { Logger } from 'pino';
import type { Pruner } from './pruner.ts';

export function scheduleRetention(options: {
  pruner: Pruner;
  intervalMs: number;
  logger: Logger;
  /** @default min(intervalMs, 60 s) */
  firstRunMs?: number;
}): { stop(): Promise<void> } {
  const { pruner, intervalMs, logger } = options;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const next = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(async () => {
      try {
        await pruner.run();
      } catch (error) {
        logger.warn({ err: error }, 'retention run failed; the next one tries again');
      }
      next(intervalMs);
    }, delay);
    // Retention never keeps a process alive on its own.
    timer.unref();
  };
  next(options.firstRunMs ?? Math.min(intervalMs, 60_000));
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pruner.stop();
    },
  };
}
