/** What the admin routes share: how a list's `limit` is read, and how a time is written. */
import type { Response } from 'express';
import { sendProblem } from './problem.ts';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

/**
 * A list's `?limit=` (default 50, 1 to 1000); undefined once it has answered 400 for a value
 * out of range or given twice.
 */
export function queryLimit(value: unknown, res: Response): number | undefined {
  const n = value === undefined ? DEFAULT_LIMIT : Number(value);
  if (typeof value !== 'object' && Number.isInteger(n) && n >= 1 && n <= MAX_LIMIT) return n;
  sendProblem(res, {
    status: 400,
    title: 'Invalid query',
    detail: `limit must be an integer from 1 to ${MAX_LIMIT}`,
  });
  return undefined;
}

/** A stored time (ms) as the admin API writes it: ISO 8601, or null. */
export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
