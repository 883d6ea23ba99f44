/**
 * How long one call to the messaging API may take, and how slowly its body may arrive (issue
 * 26). undici bounds each wait (headersTimeout, bodyTimeout: `timeoutMs`), but not their sum:
 * a server that sends a byte every few seconds passes every per-wait timeout and held a worker
 * slot for hours. So each call also has an overall deadline (Go's http.Client.Timeout, curl's
 * --max-time), and each body a minimum rate over a window (curl's --speed-limit and
 * --speed-time), which lets a large document on a slow but honest link finish.
 *
 * A document may be up to API_MAX_DOCUMENT_BYTES, so one fixed deadline would cut off a large
 * one on an honest link. Its deadline is `deadlineMs` plus the time the largest allowed takes at
 * the minimum rate; what bounds a smaller one is the rate itself, which lets a document of S
 * bytes take at most S / rate plus one window once its headers have come, and gives up a
 * drip-fed one within two windows.
 */

/** The overall deadline of one call, from its first attempt to the end of its last body. */
export interface CallDeadline {
  /** Aborts when the deadline passes; give it to every attempt. */
  readonly signal: AbortSignal;
  readonly ms: number;
  /** Milliseconds left; negative once passed. */
  remaining(): number;
}

export function startCallDeadline(
  ms: number,
  now: () => number = () => performance.now(),
): CallDeadline {
  const started = now();
  return { signal: AbortSignal.timeout(ms), ms, remaining: () => started + ms - now() };
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
  now: () => number = () => performance.now(),
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
