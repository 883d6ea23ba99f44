/**
 * Operator routes, enabled when ADMIN_TOKEN or a scoped token (ADMIN_SUBMIT_TOKEN,
 * ADMIN_READ_TOKEN) is set. With none every /admin path is 404, as if the routes did not
 * exist; without a token or with a wrong one, 401; with a token the route does not accept, 403
 * (admin-tokens.ts). The routes themselves, by what they show: event-routes.ts (the inbox),
 * message-routes.ts, submission-routes.ts (the submission outbox), sink-routes.ts (the status
 * sink's outbox).
 */
import { Router } from 'express';
import { hasControlCharacter } from '../../protocol/index.ts';
import type { Store } from '../store/store.ts';
import {
  type AdminTokens,
  adminEnabled,
  createAdminAuth,
  requireDeclaredScopes,
} from './admin-tokens.ts';
import { addEventRoutes } from './event-routes.ts';
import { addMessageRoutes } from './message-routes.ts';
import { sendProblem } from './problem.ts';
import { addSinkRoutes } from './sink-routes.ts';
import { addSubmissionRoutes } from './submission-routes.ts';

export interface AdminRouteDeps {
  tokens: AdminTokens;
  store: Store;
  now: () => number;
  /** Wakes the submission worker (submission-routes.ts). */
  onSubmissionStored?: () => void;
}

export function createAdminRouter(deps: AdminRouteDeps): Router {
  const router = Router();
  if (!adminEnabled(deps.tokens)) {
    router.use('/admin', (_req, res) =>
      sendProblem(res, { status: 404, title: 'Not Found', detail: 'No such route.' }),
    );
    return router;
  }
  const { authenticate, accepts } = createAdminAuth(deps.tokens);
  router.use('/admin', authenticate);
  refuseControlCharacters(router);
  const routeDeps = { ...deps, accepts };
  addEventRoutes(router, routeDeps);
  addMessageRoutes(router, routeDeps);
  addSubmissionRoutes(router, routeDeps);
  addSinkRoutes(router, routeDeps);
  requireDeclaredScopes(router);
  return router;
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
