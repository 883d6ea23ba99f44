/**
 * A background loop of the consumer's outboxes (the status sink's, the submissions'): it runs
 * a turn, runs the next at once when the turn found a full batch, and otherwise waits for a
 * wake-up (something was just queued) or the poll interval, whichever comes first. Polling
 * backs the wake-up: another process (a replica, a restart) queues without telling this one.
 */
export interface WakeableLoop {
  start(): void;
  /** Runs the next turn now instead of at the next poll. */
  notify(): void;
  /** Stops after the turn in hand. */
  stop(): Promise<void>;
}

/** `turn` resolves true when more work may be due at once; it must not reject. */
export function createWakeableLoop(turn: () => Promise<boolean>, pollMs: number): WakeableLoop {
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let woken = false;

  async function run(): Promise<void> {
    while (running) {
      const more = await turn();
      if (running && !more) {
        await new Promise<void>((resolve) => {
          if (woken) return resolve();
          wake = resolve;
          setTimeout(resolve, pollMs).unref();
        });
      }
      woken = false;
      wake = undefined;
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    notify() {
      woken = true;
      wake?.();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
  };
}
