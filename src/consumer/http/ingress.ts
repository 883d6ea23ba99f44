/**
 * The consumer's HTTP side as one capability: the listeners a role needs, started and closed
 * together. With OPERATIONS_PORT the webhook port serves the webhook path alone, so a gateway
 * can forward that port whole; health, metrics and admin answer on the other one. A process of
 * ROLE=worker takes no webhooks: it serves the operations routes only (on OPERATIONS_PORT if
 * set, else PORT).
 */
import type { Server } from 'node:http';
import type { Role } from '../settings/process.ts';
import type { Admission } from './admission.ts';
import { type AppDeps, type AppRoutes, createApp } from './app.ts';
import { type Listener, listen } from './listen.ts';
import type { OperationsSettings, WebhookSettings } from './settings.ts';

/** How often a closing ingress closes the connections that went idle since (answered requests). */
const IDLE_SWEEP_MS = 20;

export interface IngressDeps extends Omit<AppDeps, 'routes' | 'config' | 'admission'> {
  config: WebhookSettings & OperationsSettings & { role: Role };
  /** Shared by the webhook app and its listener, which counts its connections into it. */
  admission: Admission;
  /** @default '0.0.0.0' */
  host?: string;
}

export interface Ingress {
  /** Takes the ports; throws ListenError (naming the variable) when one is taken. */
  start(): Promise<void>;
  /** The first listener: the webhook port, or the operations one of ROLE=worker. */
  readonly webhook: Listener;
  /** The operations listener when OPERATIONS_PORT splits the routes. */
  readonly operations: Listener | undefined;
  /** Stops accepting connections; resolves when the requests in flight have finished. */
  close(): Promise<void>;
  /** Cuts the connections still open (a shutdown past its deadline). */
  cut(): void;
}

export function createIngress(deps: IngressDeps): Ingress {
  const { config } = deps;
  const host = deps.host ?? '0.0.0.0';
  const listeners: Listener[] = [];
  const app = (routes: AppRoutes) => createApp({ ...deps, routes });
  const servers = (): Server[] => listeners.map((listener) => listener.server);
  let closed: Promise<void> | undefined;

  const start = async () => {
    if (config.role === 'worker') {
      listeners.push(
        await listen(app('operations'), {
          port: config.operationsPort ?? config.port,
          host,
          variable: config.operationsPort === undefined ? 'PORT' : 'OPERATIONS_PORT',
        }),
      );
      return;
    }
    const split = config.operationsPort !== undefined;
    listeners.push(
      await listen(app(split ? 'webhook' : 'all'), {
        port: config.port,
        host,
        admission: deps.admission,
      }),
    );
    if (config.operationsPort !== undefined) {
      listeners.push(
        await listen(app('operations'), {
          port: config.operationsPort,
          host,
          variable: 'OPERATIONS_PORT',
        }),
      );
    }
  };

  return {
    async start() {
      try {
        await start();
      } catch (error) {
        for (const server of servers()) server.close();
        throw error;
      }
    },
    get webhook() {
      const [first] = listeners;
      if (first === undefined) throw new Error('ingress not started');
      return first;
    },
    get operations() {
      return listeners[1];
    },
    close() {
      closed ??= (async () => {
        const done = Promise.all(
          servers().map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
        );
        // A keep-alive connection whose request was in flight at close becomes idle only once it
        // is answered, after any one closeIdleConnections(): closed as it goes idle, or it would
        // hold close() for its keep-alive (65 s), past SHUTDOWN_TIMEOUT_MS, and the shutdown
        // would be reported forced (test/integration/consumer/close-in-flight.test.ts).
        const closeIdle = () => {
          for (const server of servers()) server.closeIdleConnections();
        };
        closeIdle();
        const idleSweep = setInterval(closeIdle, IDLE_SWEEP_MS);
        try {
          await done;
        } finally {
          clearInterval(idleSweep);
        }
      })();
      return closed;
    },
    cut() {
      for (const server of servers()) server.closeAllConnections();
    },
  };
}
