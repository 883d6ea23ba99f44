/**
 * Operator routes, enabled only when ADMIN_TOKEN is set. With no token every /admin path is
 * 404, as if the routes did not exist; with a wrong token, 401. The routes themselves, by what
 * they show: event-routes.ts (the inbox), message-routes.ts, submission-routes.ts (the
 * submission outbox), sink-routes.ts (the status sink's outbox).
 */
import { type RequestHandler, Router } from 'express';
import { hasControlCharacter } from '../../protocol/index.ts';
import type { Store } from '../store/store.ts';
import { addEventRoutes } from './event-routes.ts';
import { addMessageRoutes } from './message-routes.ts';
import { sendProblem } from './problem.ts';
import { createSecretMatch } from './secret-match.ts';
import { addSinkRoutes } from './sink-routes.ts';
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
  router.use('/admin', requireToken(adminToken));
  refuseControlCharacters(router);
  addEventRoutes(router, deps);
  addMessageRoutes(router, deps);
  addSubmissionRoutes(router, deps);
  addSinkRoutes(router, deps);
  return router;
}

/** 401 for a request without `Authorization: Bearer <ADMIN_TOKEN>`. */
function requireToken(adminToken: string): RequestHandler {
  const matches = createSecretMatch(`Bearer ${adminToken}`);
  return (req, res, next) => {
    if (matches(req.get('authorization'))) return next();
    res.set('WWW-Authenticate', 'Bearer');
    sendProblem(res, {
      status: 401,
      title: 'Unauthorized',
      detail: 'Send Authorization: Bearer <ADMIN_TOKEN>.',
    });
  };
}

/**
 * A path parameter is looked up in the store: one with a control character cannot name
 * anything stored since identifiers are checked (protocol/identifier.ts), and a NUL made
 * PostgreSQL fail the query (500) where SQLite answered 404. Refused alike on both stores.
 * Length is not checked here, so events stored before that check stay reachable.
 */
function refuseControlCharacters(router: Router): void {
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
}
