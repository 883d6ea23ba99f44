/**
 * A store contract's methods as SQLite runs them: the same arguments, and the answer at once
 * instead of a promise (better-sqlite3 is synchronous). The writer thread runs the writes
 * (sqlite-writes.ts), the main thread's connection the reads, and sqlite-store.ts wraps them
 * into the asynchronous contract; typing each side with this checks it against the contract.
 */
export type Synchronous<Contract> = SynchronousTraced<Contract, never>;

/**
 * Synchronous<Contract>, where the methods named `Traced` take one more argument, last: the
 * W3C traceparent of the caller's context (or null), which the writer thread, having no
 * context of its own, stores with what the call queues (sink-outbox.ts, submissions.ts).
 */
export type SynchronousTraced<Contract, Traced extends keyof Contract> = {
  [K in keyof Contract]: Contract[K] extends (...args: infer A) => Promise<infer R>
    ? K extends Traced
      ? (...args: [...A, traceParent: string | null]) => R
      : (...args: A) => R
    : never;
};
