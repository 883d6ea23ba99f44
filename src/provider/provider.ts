/**
 * Wiring of the provider simulator: model, webhook dispatcher, messaging API and admin API.
 * `createProvider` builds the express app without listening (tests and `npm run dev` mount
 * or listen it themselves); `startProvider` is the listening sandbox that consumer tests use.
 * The app and its boundaries (guard, admin token, body parser, problem mapper) are
 * provider-app.ts; the model and the dispatcher know nothing of HTTP.
 */
import { type AddressInfo, isIP } from 'node:net';
import type { Express } from 'express';
import { type Logger, pino } from 'pino';
import { type CallLog, createCallLog } from './api/call-log.ts';
import { type Clock, createSystemClock } from './clock.ts';
import type { EventPublisher } from './events.ts';
import { createFaultInjector, type FaultInjector } from './faults.ts';
import { listen } from './listen.ts';
import { createProviderModel, type ProviderModel } from './model/index.ts';
import { createProviderApp } from './provider-app.ts';
import { createDispatcher, type Dispatcher } from './webhooks/index.ts';

// Entry points (scripts/dev.ts, scripts/provider.ts) catch it from here, beside startProvider.
export { ProviderListenError } from './listen.ts';

export interface ProviderOptions {
  /** The sandbox participant's identifier. @default '0192:999999999' */
  party?: string;
  /** The sandbox participant's name. @default 'Sandbox Participant AS' */
  partyName?: string;
  /** @default 'NO' */
  partyCountryCode?: string;
  /** Bearer token the messaging API accepts. @default 'sandbox-token' */
  apiToken?: string;
  /**
   * When set, every /admin route needs `Authorization: Bearer <adminToken>`: anyone who can
   * reach the admin API can read invoices, rotate secrets and send test events anywhere.
   * @default undefined (no authentication: only safe on a loopback address)
   */
  adminToken?: string;
  /**
   * Host names the sandbox answers to besides loopback names and IP literals (PROVIDER_HOST
   * when it is a name, PROVIDER_ALLOWED_HOSTS): any other Host, and any foreign Origin, is
   * refused with 403 on every route (browser-guard.ts). @default []
   */
  allowedHosts?: readonly string[];
  /** Messaging API calls kept in the call log, newest last. @default 1000 */
  callLogCapacity?: number;
  /** Divides every delay of the system clock; ignored when `clock` is given. @default 1 */
  timeScale?: number;
  /** @default createSystemClock({ timeScale }) */
  clock?: Clock;
  /** @default pino at level info */
  logger?: Logger;
  /** Message, event, endpoint and action-message ids. @default crypto.randomUUID */
  randomId?: () => string;
  /** How long a failing message delivery retries before it fails. @default WEBHOOK_RETRY_WINDOW_MS */
  deliveryRetryWindowMs?: number;
  /** Sees every event besides the dispatcher; tests record events with it. */
  tap?: EventPublisher;
  /**
   * PEM certificate authorities trusted, besides the default ones, when webhooks go to HTTPS
   * endpoints (PROVIDER_CA_FILE). @default undefined
   */
  webhookCa?: string;
}

export interface Provider {
  /**
   * The whole HTTP surface: the console at `/` (assets under `/console`), the admin API at
   * `/admin`, the messaging API at its own paths. Never listens.
   */
  app: Express;
  dispatcher: Dispatcher;
  model: ProviderModel;
  faults: FaultInjector;
  callLog: CallLog;
  clock: Clock;
  /** Cancels timers and ends hanging calls; the caller closes its own server. */
  close(): void;
}

export const DEFAULT_PARTY = '0192:999999999';
export const DEFAULT_API_TOKEN = 'sandbox-token';

export function createProvider(options: ProviderOptions = {}): Provider {
  const clock = options.clock ?? createSystemClock({ timeScale: options.timeScale ?? 1 });
  const logger = options.logger ?? pino({ level: 'info' });
  const ids = options.randomId === undefined ? {} : { randomId: options.randomId };
  const dispatcher = createDispatcher({
    clock,
    logger,
    ...ids,
    ...(options.webhookCa === undefined ? {} : { ca: options.webhookCa }),
  });
  const tap = options.tap;
  const publisher: EventPublisher =
    tap === undefined
      ? dispatcher
      : {
          publish(envelope, routing) {
            tap.publish(envelope, routing);
            dispatcher.publish(envelope, routing);
          },
        };
  const model = createProviderModel({
    clock,
    publisher,
    sandbox: {
      identifier: options.party ?? DEFAULT_PARTY,
      name: options.partyName ?? 'Sandbox Participant AS',
      countryCode: options.partyCountryCode ?? 'NO',
    },
    ...ids,
    ...(options.deliveryRetryWindowMs === undefined
      ? {}
      : { deliveryRetryWindowMs: options.deliveryRetryWindowMs }),
  });
  const faults = createFaultInjector();
  const callLog = createCallLog(
    clock,
    options.callLogCapacity === undefined ? {} : { capacity: options.callLogCapacity },
  );

  const app = createProviderApp({
    clock,
    logger,
    model,
    dispatcher,
    faults,
    callLog,
    apiToken: options.apiToken ?? DEFAULT_API_TOKEN,
    adminToken: options.adminToken,
    allowedHosts: options.allowedHosts,
  });

  return {
    app,
    dispatcher,
    model,
    faults,
    callLog,
    clock,
    close() {
      faults.close();
      model.messages.close();
      dispatcher.close();
    },
  };
}

export interface StartProviderOptions extends ProviderOptions {
  /** 0 picks a free port. @default 0 */
  port?: number;
  /** A host name here is also accepted as `Host` (`allowedHosts`). @default '127.0.0.1' */
  host?: string;
  /** When given, the sandbox participant's first endpoint (so it receives every category). */
  webhookUrl?: string;
  /** That endpoint's signing secret. @default generated */
  webhookSecret?: string;
}

export interface RunningProvider {
  /** Base URL of the messaging API; the admin API is at `${url}/admin`. */
  url: string;
  /** The address and port the server listens on, as the OS reports it: `0.0.0.0:4000`. */
  address: string;
  /** True when that address is a loopback one (only this machine can connect). */
  loopback: boolean;
  /** The first endpoint's signing secret, when `webhookUrl` was given. */
  secret?: string;
  provider: Provider;
  close(): Promise<void>;
}

export async function startProvider(options: StartProviderOptions = {}): Promise<RunningProvider> {
  const host = options.host ?? '127.0.0.1';
  // Listening on a name means being called by it.
  const allowedHosts = [...(options.allowedHosts ?? []), ...(isIP(host) === 0 ? [host] : [])];
  const provider = createProvider({ ...options, allowedHosts });
  let secret: string | undefined;
  if (options.webhookUrl !== undefined) {
    const created = provider.dispatcher.createEndpoint(
      provider.model.participants.sandbox.identifier,
      {
        name: 'Default endpoint',
        url: options.webhookUrl,
        ...(options.webhookSecret === undefined ? {} : { secret: options.webhookSecret }),
      },
    );
    secret = created.secret;
  }
  const server = await listen(provider.app, options.port ?? 0, host);
  const { port, address } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  // A wildcard address is reached through loopback from this machine.
  const urlHost = address === '0.0.0.0' || address === '::' ? '127.0.0.1' : shown;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    address: `${shown}:${port}`,
    loopback: address.startsWith('127.') || address === '::1',
    ...(secret === undefined ? {} : { secret }),
    provider,
    close() {
      closing ??= new Promise<void>((resolve) => {
        provider.close();
        server.close(() => resolve());
        // Keep-alive sockets and hanging calls would hold close() open indefinitely.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
