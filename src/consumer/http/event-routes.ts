/**
 * The inbox's admin routes (docs/operating.md), behind the admin tokens (admin-tokens.ts):
 *
 *   GET  /admin/events                    events by state, a page at a time (?state, ?limit, ?after)
 *                                         ADMIN_TOKEN, ADMIN_READ_TOKEN
 *   POST /admin/events/:eventId/replay    a dead, done or skipped event back to pending: 202
 *                                         ADMIN_TOKEN only
 */
import type { Router } from 'express';
import {
  EVENT_STATES,
  type EventPage,
  type EventState,
  type StoredEvent,
} from '../store/events.ts';
import { InvalidCursorError, type Store } from '../store/store.ts';
import { parseTraceParent } from '../tracing/trace-parent.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from './admin-fields.ts';
import type { AdminAuth } from './admin-tokens.ts';
import { sendProblem } from './problem.ts';

export interface EventRouteDeps {
  store: Store;
  now: () => number;
  accepts: AdminAuth['accepts'];
}

export function addEventRoutes(router: Router, deps: EventRouteDeps): void {
  const { accepts } = deps;
  router.route('/admin/events').get(accepts('read'), async (req, res) => {
    const { state, limit, after } = req.query;
    if (state !== undefined && !EVENT_STATES.includes(state as EventState)) {
      return sendProblem(res, {
        status: 400,
        title: 'Invalid query',
        detail: `state must be one of ${EVENT_STATES.join(', ')}`,
      });
    }
    let n = DEFAULT_LIMIT;
    if (limit !== undefined) {
      n = typeof limit === 'string' && /^\d+$/.test(limit) ? Number(limit) : Number.NaN;
      if (!(n >= 1 && n <= MAX_LIMIT)) {
        return sendProblem(res, {
          status: 400,
          title: 'Invalid query',
          detail: `limit must be an integer from 1 to ${MAX_LIMIT}`,
        });
      }
    }
    if (after !== undefined && typeof after !== 'string') {
      return sendProblem(res, {
        status: 400,
        title: 'Invalid query',
        detail: 'after must be the next value of a previous page',
      });
    }
    let page: EventPage;
    try {
      page = await deps.store.events.list({
        state: state as EventState | undefined,
        limit: n,
        after,
      });
    } catch (error) {
      if (!(error instanceof InvalidCursorError)) throw error;
      return sendProblem(res, {
        status: 400,
        title: 'Invalid query',
        detail: `after must be the next value of a previous page: ${error.message}`,
      });
    }
    res.json({ items: page.items.map(eventView), next: page.next });
  });

  router.route('/admin/events/:eventId/replay').post(accepts(), async (req, res) => {
    const outcome = await deps.store.events.replay(req.params.eventId, deps.now());
    if (outcome === 'replayed') {
      res.status(202).json({ eventId: req.params.eventId, state: 'pending' });
      return;
    }
    sendProblem(res, REPLAY_REFUSALS[outcome]);
  });
}

const REPLAY_REFUSALS = {
  not_found: { status: 404, title: 'Not Found', detail: 'No event with this eventId.' },
  not_replayable: {
    status: 409,
    title: 'Not replayable',
    detail:
      'Only dead, done or skipped events can be replayed; this one is pending or in processing.',
  },
  body_dropped: {
    status: 409,
    title: 'Not replayable',
    detail:
      'Retention has dropped this event body (RETENTION_BODY_DAYS), so it cannot be handled ' +
      'again; ask the service to redeliver it if it still can.',
  },
} as const;

function eventView(event: StoredEvent) {
  return {
    eventId: event.eventId,
    action: event.action,
    transfer: event.transfer,
    messageId: event.messageId,
    occurredAt: event.occurredAt,
    test: event.test,
    flag: event.flag,
    state: event.state,
    attempts: event.attempts,
    lastError: event.lastError,
    // Why a dead event was closed without being handled again (store.ts), else null.
    resolution: event.resolution,
    bodyKept: event.body.length > 0,
    receivedAt: new Date(event.receivedAt).toISOString(),
    nextAttemptAt: event.state === 'pending' ? new Date(event.nextAttemptAt).toISOString() : null,
    // The trace of the webhook that brought it (docs/operating.md#tracing): where an operator
    // following a late event goes next. Null when tracing was off as it was stored.
    traceId: parseTraceParent(event.traceParent)?.traceId ?? null,
  };
}
