/**
 * Time for the provider simulator. The webhook retry schedule spans about two hours, so
 * everything that waits goes through a Clock: the system clock (optionally sped up with
 * PROVIDER_TIME_SCALE) in the sandbox, a manual clock in tests.
 */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Current time in milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once `delayMs` of this clock's time has passed. */
  setTimer(fn: () => void, delayMs: number): Timer;
}

/**
 * The real clock. With `timeScale` 60, a one-minute retry delay passes in one second; `now()`
 * stays wall time so delivery-log entries and signatures carry real timestamps.
 */
export function createSystemClock(options: { timeScale?: number } = {}): Clock {
  const timeScale = options.timeScale ?? 1;
  return {
    now: () => Date.now(),
    setTimer(fn, delayMs) {
      const handle = setTimeout(fn, Math.max(0, delayMs / timeScale));
      // Pending retries must not keep a process alive that is otherwise done.
      handle.unref();
      return { cancel: () => clearTimeout(handle) };
    },
  };
}

export interface ManualClock extends Clock {
  /**
   * Moves time forward by `ms`, firing every timer that falls due, in due order, with `now()`
   * set to each timer's due time while it runs. Timers a callback sets are fired too when they
   * fall inside the window.
   */
  advance(ms: number): void;
  /** Number of timers not yet fired or cancelled. */
  pendingTimers(): number;
}

/** A clock that moves only when told to; for tests. */
export function createManualClock(startMs = Date.parse('2026-01-05T09:00:00.000Z')): ManualClock {
  let current = startMs;
  let sequence = 0;
  const timers = new Map<number, { due: number; fn: () => void }>();
  return {
    now: () => current,
    setTimer(fn, delayMs) {
      const id = sequence++;
      timers.set(id, { due: current + Math.max(0, delayMs), fn });
      return { cancel: () => timers.delete(id) };
    },
    advance(ms) {
      const end = current + ms;
      for (;;) {
        let next: [number, { due: number; fn: () => void }] | undefined;
        for (const entry of timers) {
          if (entry[1].due <= end && (next === undefined || entry[1].due < next[1].due))
            next = entry;
        }
        if (next === undefined) break;
        timers.delete(next[0]);
        current = Math.max(current, next[1].due);
        next[1].fn();
      }
      current = end;
    },
    pendingTimers: () => timers.size,
  };
}
