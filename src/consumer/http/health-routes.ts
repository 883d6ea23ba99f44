/** Liveness, readiness and metrics for the orchestrator and the scraper. */
import { Router } from 'express';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/index.ts';

/** A named readiness check; throws (or rejects) when not ready. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void> | void;
}

export function createHealthRouter(deps: {
  checks: readonly ReadinessCheck[];
  metrics: Metrics;
  logger: Logger;
}): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const failures: Record<string, string> = {};
    for (const { name, check } of deps.checks) {
      try {
        await check();
      } catch (error) {
        failures[name] = error instanceof Error ? error.message : String(error);
      }
    }
    if (Object.keys(failures).length === 0) {
      // The checks that passed: a process in ROLE=ingress has no worker to check.
      res.json({ status: 'ready', checks: deps.checks.map(({ name }) => name) });
      return;
    }
    deps.logger.warn({ failures }, 'not ready');
    res.status(503).json({ status: 'not ready', failures });
  });
  router.get('/metrics', async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  return router;
}
