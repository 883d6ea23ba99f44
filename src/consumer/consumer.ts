/**
 * Starts the consumer: store, HTTP app and listener, as one object with one close(). main.ts
 * calls it for production, scripts/dev.ts for the sandbox, and end-to-end tests directly.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { createApp } from './http/app.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { openStore } from './store/open-store.ts';
import type { Store } from './store/store.ts';

export interface RunningConsumer {
  /** Base URL of the listener, e.g. http://127.0.0.1:3000 */
  url: string;
  port: number;
  store: Store;
  metrics: Metrics;
  /**
   * Stops accepting connections, lets in-flight requests finish (at most
   * config.shutdownTimeoutMs, then cuts them), closes the store. Safe to call twice.
   */
  close(): Promise<{ forced: boolean }>;
}

export async function startConsumer(options: {
  config: Config;
  logger: Logger;
  host?: string;
  now?: () => number;
}): Promise<RunningConsumer> {
  const { config, logger } = options;
  const store = await openStore(config.databaseUrl);
  const metrics = createMetrics();
  metrics.trackInbox(store.events);
  const app = createApp({
    config,
    events: store.events,
    logger,
    metrics,
    readinessChecks: [{ name: 'store', check: () => store.checkWritable() }],
    ...(options.now === undefined ? {} : { now: options.now }),
  });

  const server: Server = app.listen(config.port, options.host ?? '0.0.0.0');
  try {
    await once(server, 'listening');
  } catch (error) {
    await store.close();
    throw error;
  }
  // Slow or idle clients must not hold a socket forever; the service answers in well under this.
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  logger.info({ url, webhookPath: config.webhookPath, store: store.kind }, 'consumer listening');

  let closing: Promise<{ forced: boolean }> | undefined;
  const close = () => {
    closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'deadline'>((resolve) => {
        timer = setTimeout(() => resolve('deadline'), config.shutdownTimeoutMs);
      });
      const forced = (await Promise.race([closed, deadline])) === 'deadline';
      clearTimeout(timer);
      if (forced) {
        logger.warn('shutdown deadline reached; closing remaining connections');
        server.closeAllConnections();
        await closed;
      }
      await store.close();
      logger.info({ forced }, 'consumer stopped');
      return { forced };
    })();
    return closing;
  };
  return { url, port, store, metrics, close };
}
