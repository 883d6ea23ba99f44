/**
 * Waits for every write, then throws the first failure: nothing is left running behind an
 * error (a write still under way when the turn's outcome is recorded could land after it).
 */
export async function settleAll(writes: readonly Promise<unknown>[]): Promise<void> {
  for (const result of await Promise.allSettled(writes)) {
    if (result.status === 'rejected') throw result.reason;
  }
}
