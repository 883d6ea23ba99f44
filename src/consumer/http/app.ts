/** The consumer's HTTP application. Built here, never listening: the caller decides where. */
import express, { type ErrorRequestHandler, type Express } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Metrics } from '../metrics.ts';
import type { Store } from '../store/store.ts';
import { createAdminRouter } from './admin-routes.ts';
import { createHealthRouter, type ReadinessCheck } from './health-routes.ts';
import { sendProblem } from './problem.ts';
import { createWebhookRouter } from './webhook-route.ts';

export interface AppDeps {
  config: Config;
  store: Store;
  /** Called after an event is committed, to wake the worker. */
  onEventStored?: () => void;
  logger: Logger;
  metrics: Metrics;
  readinessChecks: readonly ReadinessCheck[];
  /** Milliseconds since the epoch. @default Date.now */
  now?: () => number;
}

export function createApp(deps: AppDeps): Express {
  const { config, store, logger, metrics } = deps;
  const app = express();
  app.disable('x-powered-by');

  const now = deps.now ?? Date.now;
  app.use(
    createWebhookRouter({
      config,
      events: store.events,
      logger,
      metrics,
      now,
      onEventStored: deps.onEventStored ?? (() => {}),
    }),
  );
  app.use(createHealthRouter({ checks: deps.readinessChecks, metrics, logger }));
  app.use(createAdminRouter({ adminToken: config.adminToken, store, now }));

  app.use((_req, res) => {
    sendProblem(res, { status: 404, title: 'Not Found', detail: 'No such route.' });
  });
  const onError: ErrorRequestHandler = (error, req, res, _next) => {
    logger.error({ err: error, method: req.method, path: req.path }, 'unhandled error');
    if (res.headersSent) return;
    sendProblem(res, { status: 500, title: 'Internal Server Error' });
  };
  app.use(onError);
  return app;
}
