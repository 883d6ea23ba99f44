/**
 * Operator routes, enabled only when ADMIN_TOKEN is set. With no token every /admin path is
 * 404, as if the routes did not exist; with a wrong token, 401.
 */
import { Router } from 'express';
import {
  EVENT_STATES,
  type EventState,
  type EventStore,
  type StoredEvent,
} from '../store/store.ts';
import { safeEqual } from './credential.ts';
import { sendProblem } from './problem.ts';

export interface AdminRouteDeps {
  adminToken: string | undefined;
  events: EventStore;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;

export function createAdminRouter(deps: AdminRouteDeps): Router {
  const router = Router();
  const { adminToken } = deps;
  if (adminToken === undefined) {
    router.use('/admin', (_req, res) =>
      sendProblem(res, { status: 404, title: 'Not Found', detail: 'No such route.' }),
    );
    return router;
  }

  const expected = Buffer.from(`Bearer ${adminToken}`);
  router.use('/admin', (req, res, next) => {
    const given = req.get('authorization');
    if (given !== undefined && safeEqual(Buffer.from(given), expected)) return next();
    res.set('WWW-Authenticate', 'Bearer');
    sendProblem(res, {
      status: 401,
      title: 'Unauthorized',
      detail: 'Send Authorization: Bearer <ADMIN_TOKEN>.',
    });
  });

  router.get('/admin/events', async (req, res) => {
    const { state, limit } = req.query;
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
    const events = await deps.events.list({ state: state as EventState | undefined, limit: n });
    res.json({ items: events.map(eventView) });
  });

  return router;
}

export function eventView(event: StoredEvent) {
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
    receivedAt: new Date(event.receivedAt).toISOString(),
    nextAttemptAt: event.state === 'pending' ? new Date(event.nextAttemptAt).toISOString() : null,
  };
}
