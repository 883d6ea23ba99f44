/**
 * Bearer-token check of the messaging API (docs/decisions.md), and of the admin API when
 * PROVIDER_ADMIN_TOKEN is set.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { UnauthorizedError } from '../errors.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

export function createBearerAuth(token: string, message?: string): RequestHandler {
  const expected = digest(token);
  return (req, res, next) => {
    const match = /^Bearer (.+)$/.exec(req.get('authorization') ?? '');
    // Comparing digests keeps the comparison constant-time whatever the presented length.
    if (match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected)) return next();
    res.set('WWW-Authenticate', 'Bearer');
    next(new UnauthorizedError(message));
  };
}
