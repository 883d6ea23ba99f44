/** The consumer's HTTP application. Built here, never listening: the caller decides where. */
import express, { type ErrorRequestHandler, type Express } from 'express';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/index.ts';
import { type Store, StoreError } from '../store/store.ts';
import { createAdminRouter } from './admin-routes.ts';
import type { AdminTokens } from './admin-tokens.ts';
import type { Admission } from './admission.ts';
import { createHealthRouter, type ReadinessCheck } from './health-routes.ts';
import { sendProblem } from './problem.ts';
import type { WebhookSettings } from './settings.ts';
import { createWebhookRouter } from './webhook/route.ts';

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

export function createApp(deps: AppDeps): Express {
  const { config, store, logger, metrics } = deps;
  const routes = deps.routes ?? 'all';
  const app = express();
  app.disable('x-powered-by');

  const now = deps.now ?? Date.now;
  if (routes !== 'operations') {
    app.use(
      createWebhookRouter({
        config,
        events: store.events,
        logger,
        metrics,
        now,
        onEventStored: deps.onEventStored ?? (() => {}),
        ...(deps.admission === undefined ? {} : { admission: deps.admission }),
      }),
    );
  }
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
  const onError: ErrorRequestHandler = (error, req, res, _next) => {
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
      logger.warn({ err: error, method: req.method, path: req.path }, 'store unavailable');
      if (res.headersSent) return;
      res.set('Retry-After', '1');
      sendProblem(res, {
        status: 503,
        title: 'Store unavailable',
        detail: 'The store could not be reached; retry shortly.',
      });
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path }, 'unhandled error');
    if (res.headersSent) return;
    sendProblem(res, { status: 500, title: 'Internal Server Error' });
  };
  app.use(onError);
  return app;
}
