/**
 * The provider's HTTP surface, assembled from parts it does not build: the console at `/`, the
 * admin API at /admin, the OpenAPI document, the messaging API.
 *
 * The boundaries are here and only here: one Host and Origin guard before every route
 * (browser-guard.ts), one token check, one JSON body parser and every admin router under
 * /admin, and one problem mapper (problem.ts) for the whole app. The model and the dispatcher
 * know nothing of HTTP.
 */
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { createScenarioRouter } from './admin/scenario-router.ts';
import { createWebhookRouter } from './admin/webhook-router.ts';
import { createBearerAuth } from './api/bearer-auth.ts';
import type { CallLog } from './api/call-log.ts';
import { checkJsonBodyShape } from './api/json-body.ts';
import { createMessagingRouter } from './api/messaging-router.ts';
import { createBrowserGuard } from './browser-guard.ts';
import type { Clock } from './clock.ts';
import { createConsoleRouter } from './console/console-router.ts';
import type { FaultInjector } from './faults.ts';
import { sampleInvoice } from './invoice.ts';
import { DEMO_SUPPLIER, type ProviderModel } from './model/index.ts';
import { createOpenApiDocument } from './openapi.ts';
import { createProblemHandler, sendProblem } from './problem.ts';
import type { Dispatcher } from './webhooks/index.ts';

/** What the app serves, built by createProvider; ProviderOptions documents the settings. */
export interface ProviderAppParts {
  clock: Clock;
  logger: Logger;
  model: ProviderModel;
  dispatcher: Dispatcher;
  faults: FaultInjector;
  callLog: CallLog;
  apiToken: string;
  adminToken: string | undefined;
  allowedHosts: readonly string[] | undefined;
}

/** Largest admin request body: a scenario's invoice, like a submit-invoice body. */
const ADMIN_BODY_LIMIT = '25mb';

export function createProviderApp(parts: ProviderAppParts): Express {
  const { clock, logger, model, dispatcher, faults, callLog } = parts;
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
      parts.allowedHosts === undefined ? {} : { allowedHosts: parts.allowedHosts },
    ),
  );
  if (parts.adminToken !== undefined) {
    app.use(
      '/admin',
      createBearerAuth(
        parts.adminToken,
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
      adminTokenRequired: parts.adminToken !== undefined,
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
      apiToken: parts.apiToken,
      faults,
      callLog,
    }),
  );
  app.use((req, res) => sendProblem(res, 404, `No route ${req.method} ${req.path}.`));
  app.use(createProblemHandler(logger));

  return app;
}
