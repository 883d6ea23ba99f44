/**
 * Wiring of the provider simulator: model, webhook dispatcher, messaging API and admin API.
 * `createProvider` builds the express app without listening (tests and `npm run dev` mount
 * or listen it themselves); `startProvider` is the listening sandbox that consumer tests use.
 *
 * The boundaries are here and only here: one Host and Origin guard before every route
 * (browser-guard.ts), one token check, one JSON body parser and every admin router under
 * /admin, and one problem mapper (problem.ts) for the whole app. The model and the dispatcher
 * know nothing of HTTP.
 */
import type { Server } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import express, { type Express } from 'express';
import { type Logger, pino } from 'pino';
import { createScenarioRouter } from './admin/scenario-router.ts';
import { createWebhookRouter } from './admin/webhook-router.ts';
import { createBearerAuth } from './api/bearer-auth.ts';
import { type CallLog, createCallLog } from './api/call-log.ts';
import { checkJsonBodyShape } from './api/json-body.ts';
import { createMessagingRouter } from './api/messaging-router.ts';
import { createBrowserGuard } from './browser-guard.ts';
import { type Clock, createSystemClock } from './clock.ts';
import { createConsoleRouter } from './console/console-router.ts';
import type { EventPublisher } from './events.ts';
import { createFaultInjector, type FaultInjector } from './faults.ts';
import { sampleInvoice } from './invoice.ts';
import { createProviderModel, DEMO_SUPPLIER, type ProviderModel } from './model/index.ts';
import { createOpenApiDocument } from './openapi.ts';
import { createProblemHandler, sendProblem } from './problem.ts';
import { createDispatcher, type Dispatcher } from './webhooks/index.ts';

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
/** Largest admin request body: a scenario's invoice, like a submit-invoice body. */
const ADMIN_BODY_LIMIT = '25mb';
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

  const app = express();
  app.disable('x-powered-by');
  // Answers are dated by the simulator's clock, the one occurredAt comes from, as the service's
  // answers and events share its clock; a consumer may use the Date of GET /messages/:mid to
  // tell which events a fetch already reflects.
  app.use((_req, res, next) => {
    res.setHeader('Date', new Date(clock.now()).toUTCString());
    next();
  });
  // Before every route, token or not: a web page must not drive any of them.
  app.use(
    createBrowserGuard(
      options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts },
    ),
  );
  if (options.adminToken !== undefined) {
    app.use(
      '/admin',
      createBearerAuth(
        options.adminToken,
        'Send the admin token (PROVIDER_ADMIN_TOKEN) as "Authorization: Bearer <token>".',
      ),
    );
  }
  // One parser for every admin route: the invoice overrides of a scenario can be large.
  // Bounded in shape before parsing, as the messaging API's bodies (api/json-body.ts).
  app.use('/admin', express.json({ limit: ADMIN_BODY_LIMIT, verify: checkJsonBodyShape }));
  app.use('/admin', createScenarioRouter({ model, clock, faults, callLog }));
  app.use('/admin', createWebhookRouter(dispatcher));
  app.use('/admin', (req, res) =>
    sendProblem(res, 404, `No admin route ${req.method} ${req.path}.`),
  );
  // The contract as this simulator implements it; public like the console page.
  const openApi = createOpenApiDocument();
  app.get('/openapi.json', (_req, res) => {
    res.json(openApi);
  });
  app.use(
    createConsoleRouter({
      party: model.participants.sandbox,
      adminTokenRequired: options.adminToken !== undefined,
      exampleInvoice: () =>
        sampleInvoice({
          supplier: model.participants.sandbox,
          customer: DEMO_SUPPLIER,
          invoiceNo: 'INV-1001',
          issueDate: new Date(clock.now()).toISOString(),
        }),
    }),
  );
  app.use(
    createMessagingRouter({
      model,
      apiToken: options.apiToken ?? DEFAULT_API_TOKEN,
      faults,
      callLog,
    }),
  );
  app.use((req, res) => sendProblem(res, 404, `No route ${req.method} ${req.path}.`));
  app.use(createProblemHandler(logger));

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

function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) =>
      error ? reject(portError(port, host, error as NodeJS.ErrnoException)) : resolve(server),
    );
  });
}

/**
 * The port could not be taken; the message names PROVIDER_PORT, which sets it in every entry
 * point, so that `npm run dev` twice says what to change instead of printing a stack.
 */
export class ProviderListenError extends Error {
  override readonly name = 'ProviderListenError';
}

function portError(port: number, host: string, cause: NodeJS.ErrnoException): Error {
  if (cause.code !== 'EADDRINUSE' && cause.code !== 'EACCES') return cause;
  const why =
    cause.code === 'EADDRINUSE'
      ? `is taken: another process listens on ${host}:${port} (a second npm run dev or npm run provider?)`
      : 'needs privileges this process does not have (ports below 1024)';
  return new ProviderListenError(
    `PROVIDER_PORT ${port} ${why}; stop that process or set PROVIDER_PORT to a free port`,
    { cause },
  );
}
