/**
 * The consumer's HTTP application, as node:http's request listener. Built here, never
 * listening: the caller decides where. Express routes everything but the webhook path as
 * configured, which goes straight to its handler (below).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express, { type ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/index.ts';
import { type Store, StoreError } from '../store/store.ts';
import { createAdminRouter } from './admin-routes.ts';
import type { AdminTokens } from './admin-tokens.ts';
import type { Admission } from './admission.ts';
import { createHealthRouter, type ReadinessCheck } from './health-routes.ts';
import { sendProblem } from './problem.ts';
import type { WebhookSettings } from './settings.ts';
import { createWebhookHandler } from './webhook/route.ts';

/**
 * Which routes an app serves: `all` on one port (the default), or the split used with
 * OPERATIONS_PORT: `webhook` (only the webhook path, the one a gateway exposes) and
 * `operations` (/healthz, /readyz, /metrics, /admin).
 */
export type AppRoutes = 'all' | 'webhook' | 'operations';

export interface AppDeps {
  config: WebhookSettings & AdminTokens;
  store: Store;
  /** Called after an event is committed, to wake the worker. */
  onEventStored?: () => void;
  /** Called after a submission is stored, to wake the submission worker. */
  onSubmissionStored?: () => void;
  logger: Logger;
  metrics: Metrics;
  readinessChecks: readonly ReadinessCheck[];
  /** Milliseconds since the epoch. @default Date.now */
  now?: () => number;
  /** @default 'all' */
  routes?: AppRoutes;
  /** The webhook route's limits, shared with the listener. @default from config */
  admission?: Admission;
}

export function createApp(deps: AppDeps): RequestListener {
  const { config, store, logger, metrics } = deps;
  const routes = deps.routes ?? 'all';
  const app = express();
  app.disable('x-powered-by');

  const now = deps.now ?? Date.now;
  const webhook =
    routes === 'operations'
      ? undefined
      : createWebhookHandler({
          config,
          events: store.events,
          logger,
          metrics,
          now,
          onEventStored: deps.onEventStored ?? (() => {}),
          ...(deps.admission === undefined ? {} : { admission: deps.admission }),
        });
  if (webhook !== undefined) app.all(config.webhookPath, webhook);
  if (routes !== 'webhook') {
    app.use(createHealthRouter({ checks: deps.readinessChecks, metrics, logger }));
    app.use(
      createAdminRouter({
        tokens: {
          adminToken: config.adminToken,
          adminSubmitToken: config.adminSubmitToken,
          adminReadToken: config.adminReadToken,
        },
        store,
        now,
        ...(deps.onSubmissionStored === undefined
          ? {}
          : { onSubmissionStored: deps.onSubmissionStored }),
      }),
    );
  }

  app.use((_req, res) => {
    sendProblem(res, { status: 404, title: 'Not Found', detail: 'No such route.' });
  });
  const answerError = createErrorAnswer(logger);
  app.use(((error, req, res, _next) =>
    answerError(error, req, res, req.path)) satisfies ErrorRequestHandler);
  if (webhook === undefined) return app;

  // The webhook path as configured goes straight to its handler: express's router and its
  // request and response set-up were some 9% of a webhook's CPU (BENCHMARKS.md, "What limits
  // the ingress now"). Any other spelling express routes to it (`/Webhooks`, a trailing slash,
  // an absolute URL) still goes through express, to the same handler; so does a WEBHOOK_PATH
  // that express would read otherwise than a plain comparison does.
  const direct = isPlainPath(config.webhookPath) ? config.webhookPath : undefined;
  return (req, res) => {
    const path = pathOf(req);
    if (direct !== undefined && path === direct) {
      webhook(req, res).catch((error: unknown) => answerError(error, req, res, path));
    } else {
      app(req, res);
    }
  };
}

/** The answer to an error thrown past a route's own handling, logged once. */
function createErrorAnswer(logger: Logger) {
  return (error: unknown, req: IncomingMessage, res: ServerResponse, path: string): void => {
    // The router could not decode a path parameter (`%zz`): the client's mistake, not ours.
    if (error instanceof URIError) {
      if (res.headersSent) return;
      sendProblem(res, {
        status: 400,
        title: 'Bad Request',
        detail: 'The path contains an invalid percent-escape.',
      });
      return;
    }
    // The store is away (a database restart, a failover): a passing condition, said as such.
    if (error instanceof StoreError) {
      logger.warn({ err: error, method: req.method, path }, 'store unavailable');
      if (res.headersSent) return;
      res.setHeader('Retry-After', '1');
      sendProblem(res, {
        status: 503,
        title: 'Store unavailable',
        detail: 'The store could not be reached; retry shortly.',
      });
      return;
    }
    logger.error({ err: error, method: req.method, path }, 'unhandled error');
    if (res.headersSent) return;
    sendProblem(res, { status: 500, title: 'Internal Server Error' });
  };
}

/** The request target's path, without its query. */
function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * Express matches the request's path against this one as a plain comparison would: none of the
 * characters its path syntax gives a meaning (`:id`, `{…}`, `*`), no `#` (it never sees a
 * fragment) and no trailing slash (it drops those of the pattern, so `/hooks//` is `/hooks`).
 */
function isPlainPath(path: string): boolean {
  return !/[:*?+!(){}[\]\\#]/.test(path) && !path.endsWith('/');
}
