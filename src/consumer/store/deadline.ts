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
 * `promise`, or a StoreError once `ms` have passed: for the writes a caller must not wait on
 * for long (a webhook's insert, the readiness probe). The write itself goes on; if it still
 * commits, the service's retry of the webhook is a duplicate, answered 204.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(new StoreError(`the store did not commit within ${ms} ms (is it locked or away?)`)),
      ms,
    );
  });
  // The write may still fail after the deadline; nobody waits for that answer any more.
  promise.catch(() => {});
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * The inbox's insert as the webhook route calls it: `insert` within withDeadline, and any
 * failure a StoreError naming the event (the HTTP layer answers 503, the service retries).
 */
export function insertWithDeadline(
  insert: (event: NewEvent) => Promise<InsertOutcome>,
  ms: number,
): (event: NewEvent) => Promise<InsertOutcome> {
  return async (event) => {
    try {
      return await withDeadline(insert(event), ms);
    } catch (error) {
      throw new StoreError(`Could not store event ${event.eventId}`, { cause: error });
    }
  };
}
