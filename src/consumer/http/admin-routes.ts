/**
 * Operator routes, enabled only when ADMIN_TOKEN is set. With no token every /admin path is
 * 404, as if the routes did not exist; with a wrong token, 401.
 */
import { Router } from 'express';
import { hasControlCharacter } from '../../protocol/index.ts';
import {
  EVENT_STATES,
  type EventPage,
  type EventState,
  type StoredEvent,
} from '../store/events.ts';
import type { MessageRecord } from '../store/messages.ts';
import { InvalidCursorError, type Store } from '../store/store.ts';
import { DEFAULT_LIMIT, iso, MAX_LIMIT, queryLimit } from './admin-fields.ts';
import { sendProblem } from './problem.ts';
import { createSecretMatch } from './secret-match.ts';
import { addSubmissionRoutes } from './submission-routes.ts';

export interface AdminRouteDeps {
  adminToken: string | undefined;
  store: Store;
  now: () => number;
  /** Wakes the submission worker (submission-routes.ts). */
  onSubmissionStored?: () => void;
}

export function createAdminRouter(deps: AdminRouteDeps): Router {
  const router = Router();
  const { adminToken } = deps;
  if (adminToken === undefined) {
    router.use('/admin', (_req, res) =>
      sendProblem(res, { status: 404, title: 'Not Found', detail: 'No such route.' }),
    );
    return router;
  }

  const matches = createSecretMatch(`Bearer ${adminToken}`);
  router.use('/admin', (req, res, next) => {
    if (matches(req.get('authorization'))) return next();
    res.set('WWW-Authenticate', 'Bearer');
    sendProblem(res, {
      status: 401,
      title: 'Unauthorized',
      detail: 'Send Authorization: Bearer <ADMIN_TOKEN>.',
    });
  });

  // A path parameter is looked up in the store: one with a control character cannot name
  // anything stored since identifiers are checked (protocol/identifier.ts), and a NUL made
  // PostgreSQL fail the query (500) where SQLite answered 404. Refused alike on both stores.
  // Length is not checked here, so events stored before that check stay reachable.
  for (const name of ['eventId', 'messageId']) {
    router.param(name, (_req, res, next, value: string) => {
      if (!hasControlCharacter(value) && value.isWellFormed()) return next();
      sendProblem(res, {
        status: 400,
        title: 'Invalid path',
        detail: `${name} must not contain control characters (U+0000 to U+001F, U+007F to U+009F) or lone surrogates`,
      });
    });
  }

  router.get('/admin/events', async (req, res) => {
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

  router.post('/admin/events/:eventId/replay', async (req, res) => {
    const outcome = await deps.store.events.replay(req.params.eventId, deps.now());
    if (outcome === 'replayed') {
      res.status(202).json({ eventId: req.params.eventId, state: 'pending' });
      return;
    }
    sendProblem(res, REPLAY_REFUSALS[outcome]);
  });

  router.get('/admin/messages/:messageId', async (req, res) => {
    const sides = await deps.store.messages.listSides(req.params.messageId);
    if (sides.length === 0) {
      sendProblem(res, { status: 404, title: 'Not Found', detail: 'No such message.' });
      return;
    }
    const view = (transfer: 'inbound' | 'outbound') => {
      const side = sides.find((candidate) => candidate.transfer === transfer);
      return side === undefined ? null : messageView(side);
    };
    res.json({
      messageId: req.params.messageId,
      inbound: view('inbound'),
      outbound: view('outbound'),
    });
  });

  addSubmissionRoutes(router, deps);

  // The status sink's outbox (docs/status-sink.md#operating): how far behind the sink is, and
  // the notices it refuses with their last error.
  router.get('/admin/sink', async (req, res) => {
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

  return router;
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
  };
}

/** The view docs/operating.md documents, which operators and acceptance checks read. */
function messageView(record: MessageRecord) {
  return {
    deliveryStatus: record.deliveryStatus,
    taxReportingStatus: record.taxReportingStatus,
    lifecycleStatus: record.lifecycleStatus,
    validationStatus: record.validationStatus,
    documentNo: record.documentNo,
    importedAt: iso(record.importedAt),
    acknowledgedAt: iso(record.acknowledgedAt),
    lastEventAt: iso(record.lastEventAt),
    // Where the importer put the documents (an ERP's document number, a folder), how many
    // import() calls were started, and the last transient failure of one (null once imported).
    importLocation: record.importLocation,
    importAttempts: record.importAttempts,
    importError: record.importError,
    // What the service was told: delivered, or failed with the importer's reason.
    acknowledgement: record.acknowledgement,
    failureReason: record.failureReason,
  };
}
