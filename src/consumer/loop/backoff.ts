/**
 * Delay before the next attempt of a failed event: exponential from `baseMs`, capped at
 * `maxMs`, with "equal jitter" (half fixed, half random) so that events failing together
 * (a provider outage) do not all come back at the same instant.
 */
export interface BackoffOptions {
  /** @default 2000 */
  baseMs?: number;
  /** @default 300000 (5 minutes) */
  maxMs?: number;
  /** @default Math.random */
  random?: () => number;
}

export function eventRetryDelay(attempt: number, options: BackoffOptions = {}): number {
  const { baseMs = 2_000, maxMs = 300_000, random = Math.random } = options;
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}
