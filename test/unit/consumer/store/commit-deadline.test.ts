import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCommitDeadline } from '../../../../src/consumer/store/deadline.ts';
import { StoreError } from '../../../../src/consumer/store/store.ts';

/** A write of the test's making: it commits, or fails, when the test says. */
function write<T>() {
  let commit!: (value: T) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<T>((resolve, reject) => {
    commit = resolve;
    fail = reject;
  });
  return { promise, commit, fail };
}

/** How a promise has ended by now: its value, its error, or 'waiting'. */
function outcome<T>(promise: Promise<T>) {
  const seen: { value?: T; error?: unknown; ended: boolean } = { ended: false };
  promise.then(
    (value) => Object.assign(seen, { value, ended: true }),
    (error: unknown) => Object.assign(seen, { error, ended: true }),
  );
  return seen;
}

describe('createCommitDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const deadlineOf = (ms: number) => createCommitDeadline(ms, () => Date.now());

  it('answers a write that commits in time with its own outcome, and leaves no timer behind', async () => {
    const deadline = deadlineOf(2000);
    const committed = write<string>();
    const failed = write<string>();
    const first = outcome(deadline(committed.promise));
    const second = outcome(deadline(failed.promise));
    committed.commit('inserted');
    failed.fail(new Error('SQLITE_CONSTRAINT'));
    await vi.advanceTimersByTimeAsync(0);
    expect(first).toEqual({ value: 'inserted', ended: true });
    expect(second.error).toEqual(new Error('SQLITE_CONSTRAINT'));
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fails each write at its own deadline, with one timer for all of them', async () => {
    const deadline = deadlineOf(2000);
    const early = outcome(deadline(write<string>().promise));
    await vi.advanceTimersByTimeAsync(500);
    const writes = Array.from({ length: 100 }, () => outcome(deadline(write<string>().promise)));
    expect(vi.getTimerCount()).toBe(1);

    await vi.advanceTimersByTimeAsync(1499);
    expect(early.ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(early.error).toBeInstanceOf(StoreError);
    expect((early.error as Error).message).toBe(
      'the store did not commit within 2000 ms (is it locked or away?)',
    );
    expect(writes.some((w) => w.ended)).toBe(false);

    await vi.advanceTimersByTimeAsync(500);
    expect(writes.every((w) => w.error instanceof StoreError)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps the deadline of a write waiting behind writes that committed', async () => {
    const deadline = deadlineOf(1000);
    const committed = write<string>();
    deadline(committed.promise);
    await vi.advanceTimersByTimeAsync(600);
    const waiting = outcome(deadline(write<string>().promise));
    committed.commit('inserted');
    await vi.advanceTimersByTimeAsync(999);
    expect(waiting.ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(waiting.error).toBeInstanceOf(StoreError);
  });

  it('ignores a commit that comes after the deadline', async () => {
    const deadline = deadlineOf(1000);
    const late = write<string>();
    const answer = outcome(deadline(late.promise));
    await vi.advanceTimersByTimeAsync(1000);
    late.commit('inserted');
    await vi.advanceTimersByTimeAsync(0);
    expect(answer.error).toBeInstanceOf(StoreError);
    expect(answer.value).toBeUndefined();
  });
});
