/**
 * The commit deadline both stores put on the writes a caller must not wait on for long: a
 * webhook's insert (its 204 or 503 is due before the service gives up) and the readiness
 * probe.
 */
import { STORE_COMMIT_DEADLINE_MS } from '../settings/answer-budget.ts';
import type { InsertOutcome, NewEvent } from './events.ts';
import { StoreError } from './store.ts';

/**
 * The deadline a store puts on those writes: its `commitTimeoutMs` option, else the one the
 * webhook's 5 s answer budget leaves for the commit (settings/answer-budget.ts, 2 s).
 */
export function commitDeadlineOf(options: { commitTimeoutMs?: number }): number {
  return options.commitTimeoutMs ?? STORE_COMMIT_DEADLINE_MS;
}

/**
 * `promise`, or a StoreError once `ms` have passed since it was handed over. The write itself
 * goes on; if it still commits, the service's retry of the webhook is a duplicate, answered
 * 204, and nobody waits for a failure that comes after the deadline.
 */
export type CommitDeadline = <T>(promise: Promise<T>) => Promise<T>;

/**
 * A CommitDeadline for every write of one store, with one timer for all of them instead of one
 * per write (a timer set and cleared per webhook cost the ingress more than the store's own
 * call: issue 39). Every write gets the same `ms`, so the writes waiting are in the order their
 * deadlines pass: the timer is set for the oldest one only, and when it fires it fails every
 * write past its deadline and is set again for the next. A write that commits in time just
 * leaves the line. Each write still fails at its own deadline, to the timer's precision.
 *
 * `now` is monotonic (a wall clock set back would stretch a deadline). @default performance.now
 */
export function createCommitDeadline(
  ms: number,
  now: () => number = () => performance.now(),
): CommitDeadline {
  type Waiting = { expiresAt: number; fail: (error: Error) => void; done: boolean };
  // The writes under the deadline, oldest first, from `head` on; those done are skipped.
  let line: Waiting[] = [];
  let head = 0;
  let timer: NodeJS.Timeout | undefined;

  const dropDone = () => {
    while (head < line.length && line[head]?.done) head++;
    if (head === line.length) {
      line = [];
      head = 0;
    } else if (head > 1024 && head * 2 > line.length) {
      line = line.slice(head);
      head = 0;
    }
  };
  const arm = () => {
    const oldest = line[head];
    if (timer !== undefined || oldest === undefined) return;
    timer = setTimeout(expire, Math.max(1, Math.ceil(oldest.expiresAt - now())));
  };
  function expire() {
    timer = undefined;
    const at = now();
    for (let oldest = line[head]; oldest !== undefined && oldest.expiresAt <= at; ) {
      if (!oldest.done) {
        oldest.done = true;
        oldest.fail(
          new StoreError(`the store did not commit within ${ms} ms (is it locked or away?)`),
        );
      }
      head++;
      oldest = line[head];
    }
    dropDone();
    arm();
  }
  const leave = (waiting: Waiting) => {
    waiting.done = true;
    dropDone();
    if (line.length === 0 && timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
  };

  return <T>(promise: Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const waiting: Waiting = { expiresAt: now() + ms, fail: reject, done: false };
      line.push(waiting);
      arm();
      promise.then(
        (value) => {
          leave(waiting);
          resolve(value);
        },
        (error: unknown) => {
          leave(waiting);
          reject(error);
        },
      );
    });
}

/**
 * The inbox's insert as the webhook route calls it: `insert` within the store's deadline, and
 * any failure a StoreError naming the event (the HTTP layer answers 503, the service retries).
 */
export function insertWithDeadline(
  insert: (event: NewEvent) => Promise<InsertOutcome>,
  deadline: CommitDeadline,
): (event: NewEvent) => Promise<InsertOutcome> {
  return async (event) => {
    try {
      return await deadline(insert(event));
    } catch (error) {
      throw new StoreError(`Could not store event ${event.eventId}`, { cause: error });
    }
  };
}
