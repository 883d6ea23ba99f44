/**
 * The bytes that documents kept in memory may hold at once, for one API client. Each document
 * takes its bytes as they arrive and gives them back when it is discarded; one that would pass
 * the budget goes to a spool file instead. So memory stays bounded however many messages are
 * fetched at once and whatever their size, and the usual invoice (a few KiB) never touches disk
 * until it is imported.
 */
export interface MemoryBudget {
  /** Takes `bytes` when that many are left and answers true; false (taking nothing) otherwise. */
  take(bytes: number): boolean;
  /** Gives back bytes taken earlier. */
  give(bytes: number): void;
}

export function createMemoryBudget(totalBytes: number): MemoryBudget {
  let held = 0;
  return {
    take(bytes) {
      if (held + bytes > totalBytes) return false;
      held += bytes;
      return true;
    },
    give(bytes) {
      held = Math.max(0, held - bytes);
    },
  };
}
