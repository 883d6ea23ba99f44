/**
 * One call of the sink (deliver(), or deliverMany() for a batch) as the sink loop makes it:
 * with a signal the sink can pass on, and a deadline of the loop's own. Past the deadline the
 * call counts as failed whatever the sink does afterwards: a sink that ignores the signal (a forked one written before it existed, a
 * library that takes none) keeps its call running, but the loop no longer waits for it, so
 * its slot goes to another stream. An ERP that never answers, or answers a byte at a time,
 * costs its stream one deadline per attempt and the other streams nothing.
 */
import { printableText, REMOTE_TEXT_LIMIT } from '../text/error-text.ts';

/** The sink did not resolve within the delivery deadline. */
export class SinkDeadlineError extends Error {
  override readonly name = 'SinkDeadlineError';
  readonly deadlineMs: number;
  constructor(deadlineMs: number) {
    super(
      `the status sink did not take the notice within ${deadlineMs} ms (SINK_DELIVERY_TIMEOUT_MS)`,
    );
    this.deadlineMs = deadlineMs;
  }
}

/** The consumer stopped (a shutdown past its deadline) before the sink answered. */
export class SinkStoppedError extends Error {
  override readonly name = 'SinkStoppedError';
  constructor() {
    super('the consumer stopped before the status sink answered');
  }
}

/**
 * Makes one call of the sink (`deliver(notice, { signal })`, or deliverMany) and resolves with
 * what it resolves with, or rejects with the reason `cut` is aborted with, or with a
 * SinkDeadlineError after `deadlineMs`: whichever comes first. The signal the sink receives is
 * `cut`'s, aborted at the deadline too.
 */
export async function callWithin<T>(
  call: (signal: AbortSignal) => T | Promise<T>,
  deadlineMs: number,
  cut: AbortController,
): Promise<T> {
  const { signal } = cut;
  const timer = setTimeout(() => cut.abort(new SinkDeadlineError(deadlineMs)), deadlineMs);
  let stopWaiting: (() => void) | undefined;
  try {
    // A sink that throws before returning a promise is a refusal like any other.
    const called = new Promise<T>((resolve) => resolve(call(signal)));
    // What the call does after the loop stopped waiting is no one's business: not an
    // unhandled rejection.
    called.catch(() => undefined);
    const abandoned = new Promise<never>((_, reject) => {
      stopWaiting = () => reject(signal.reason);
      if (signal.aborted) stopWaiting();
      else signal.addEventListener('abort', stopWaiting, { once: true });
    });
    return await Promise.race([called, abandoned]);
  } finally {
    clearTimeout(timer);
    if (stopWaiting !== undefined) signal.removeEventListener('abort', stopWaiting);
  }
}

/**
 * A sink's error as the loop stores and logs it: a forked sink may put anything in a message
 * (an ERP's whole answer, escape sequences, line breaks), so it gets the rules of the API's
 * error text (text/error-text.ts): printable, at most REMOTE_TEXT_LIMIT characters.
 */
export function sinkErrorText(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? error.message || error.name : String(error);
  } catch {
    // Something thrown that cannot even be made a string (an object without a prototype).
    text = '';
  }
  return printableText(text, REMOTE_TEXT_LIMIT) || 'the status sink gave no reason';
}
