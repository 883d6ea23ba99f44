/**
 * How long one call to the messaging API may take, and how slowly its body may arrive (issue
 * 26). undici bounds each wait (headersTimeout, bodyTimeout: `timeoutMs`), but not their sum:
 * a server that sends a byte every few seconds passes every per-wait timeout and held a worker
 * slot for hours. So each call also has an overall deadline (Go's http.Client.Timeout, curl's
 * --max-time), and each body a minimum rate over a window (curl's --speed-limit and
 * --speed-time), which lets a large document on a slow but honest link finish.
 *
 * A document may be up to API_MAX_DOCUMENT_BYTES, so a fixed deadline would either cut off a
 * large one or leave a small one far too long: its deadline is `deadlineMs` plus the time its
 * size takes at the minimum rate, the size being its Content-Length once the headers tell it,
 * and the largest allowed before.
 */

/** The overall deadline of one call, from its first attempt to the end of its last body. */
export interface CallDeadline {
  /** Aborts when the deadline passes; give it to every attempt. */
  readonly signal: AbortSignal;
  /** The deadline as it stands, in ms from the start of the call. */
  readonly ms: number;
  /** Milliseconds left; negative once passed. */
  remaining(): number;
  /**
   * Brings the deadline forward to `ms` from the start of the call (never later). Returns a
   * signal that aborts then, for the attempt in flight, which was given the earlier signal.
   */
  narrow(ms: number): AbortSignal;
}

export function startCallDeadline(ms: number, now: () => number = performance.now): CallDeadline {
  const started = now();
  let limitMs = ms;
  let signal = AbortSignal.timeout(ms);
  return {
    get signal() {
      return signal;
    },
    get ms() {
      return limitMs;
    },
    remaining: () => started + limitMs - now(),
    narrow(to) {
      if (to >= limitMs) return signal;
      limitMs = to;
      signal = AbortSignal.any([signal, AbortSignal.timeout(Math.max(0, started + to - now()))]);
      return signal;
    },
  };
}

/** Deadline of a call whose body may be `bytes` long: the base plus `bytes` at the minimum rate. */
export function deadlineForSize(baseMs: number, bytes: number, minBytesPerSecond: number): number {
  return baseMs + Math.ceil((bytes / minBytesPerSecond) * 1000);
}

/** The body arrived more slowly than the minimum rate over a whole window. */
export class BodyTooSlow extends Error {
  readonly bytesPerSecond: number;
  readonly windowMs: number;
  constructor(bytesPerSecond: number, windowMs: number) {
    super('body too slow');
    this.bytesPerSecond = bytesPerSecond;
    this.windowMs = windowMs;
  }
}

/**
 * Counts a body's bytes as they arrive (`received(n)` per chunk) and throws BodyTooSlow at the
 * first chunk that ends a window of at least `windowMs` in which fewer than
 * `minBytesPerSecond` per second arrived. Windows follow each other from the headers, so only a
 * whole slow window fails, never a slow first second. No timer: the chunks drive it, and the
 * wait for a chunk is bounded by bodyTimeout (`windowMs` too), so a slow body is given up at
 * most two windows after it starts.
 */
export function createRateWatch(
  minBytesPerSecond: number,
  windowMs: number,
  now: () => number = performance.now,
): (bytes: number) => void {
  let windowStart = now();
  let bytesInWindow = 0;
  return (bytes) => {
    bytesInWindow += bytes;
    const elapsed = now() - windowStart;
    if (elapsed < windowMs) return;
    const rate = (bytesInWindow * 1000) / elapsed;
    if (rate < minBytesPerSecond) throw new BodyTooSlow(Math.floor(rate), Math.round(elapsed));
    windowStart = now();
    bytesInWindow = 0;
  };
}
