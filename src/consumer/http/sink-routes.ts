/**
 * The status sink's admin route (docs/status-sink.md#operating), behind the admin tokens
 * (admin-tokens.ts): how far behind the sink is, and the notices it refuses with their last
 * error.
 *
 *   GET /admin/sink   counts of the outbox and its notices (?state=pending|failing, ?limit)
 *                     ADMIN_TOKEN, ADMIN_READ_TOKEN
 */
import type { Router } from 'express';
import type { Store } from '../store/store.ts';
import { iso, queryLimit } from './admin-fields.ts';
import type { AdminAuth } from './admin-tokens.ts';
import { sendProblem } from './problem.ts';

export function addSinkRoutes(
  router: Router,
  deps: { store: Store; accepts: AdminAuth['accepts'] },
): void {
  router.route('/admin/sink').get(deps.accepts('read'), async (req, res) => {
    const { state, limit } = req.query;
    if (state !== undefined && state !== 'pending' && state !== 'failing') {
      return sendProblem(res, {
        status: 400,
        title: 'Invalid query',
        detail: 'state must be pending or failing',
      });
    }
    const n = queryLimit(limit, res);
    if (n === undefined) return;
    const outbox = deps.store.sinkOutbox;
    const [stats, rows] = await Promise.all([
      outbox.stats(),
      outbox.list({ limit: n, ...(state === undefined ? {} : { state }) }),
    ]);
    res.json({
      pending: stats.pending,
      failing: stats.failing,
      oldestPendingAt: iso(stats.oldestPendingAt),
      items: rows.map((row) => ({
        seq: row.seq,
        notice: row.notice,
        queuedAt: iso(row.createdAt),
        attempts: row.attempts,
        nextAttemptAt: row.deliveredAt === null ? iso(row.nextAttemptAt) : null,
        deliveredAt: iso(row.deliveredAt),
        lastError: row.lastError,
      })),
    });
  });
}
