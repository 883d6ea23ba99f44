/**
 * Admin routes of the webhook dispatcher, mounted at /admin by the provider wiring. Bodies are
 * validated with zod; every error becomes RFC 9457 problem JSON here, in `problemFor`, so the
 * dispatcher itself stays free of HTTP. Body parsing is per route, not router-wide, because
 * other admin routes share the /admin mount and must get their bodies untouched.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Dispatcher } from './dispatcher.ts';
import type { EndpointInput } from './endpoints.ts';
import {
  DeliveryNotFoundError,
  DeliveryStateError,
  EndpointInUseError,
  EndpointLimitError,
  EndpointNotFoundError,
  InvalidEndpointError,
  RoutingRuleError,
  TestEventError,
} from './errors.ts';
import type { RuleInput } from './types.ts';

const credentialSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('bearer'), token: z.string().min(1) }),
  z.object({ type: z.literal('basic'), username: z.string().min(1), password: z.string() }),
  z.object({ type: z.literal('header'), name: z.string().min(1), value: z.string() }),
]);

const createEndpointSchema = z.object({
  name: z.string().trim().min(1).max(200),
  url: z.string().min(1).max(2000),
  credential: credentialSchema.optional(),
});

const routingSchema = z.object({
  rules: z
    .array(
      z.object({
        filter: z.string().max(2000).nullable().optional(),
        target: z.string().min(1).nullable(),
        statusEventsForOwnChanges: z.boolean().optional(),
      }),
    )
    .max(100),
});

const categorySchema = z.enum(['inbound', 'outbound']);

const testEventSchema = z.object({
  category: categorySchema.optional(),
  action: z.string().min(1).optional(),
});

const deliveriesQuerySchema = z.object({
  state: z.enum(['pending', 'succeeded', 'exhausted']).optional(),
  messageId: z.string().min(1).optional(),
  eventId: z.string().min(1).optional(),
});

/** `<scheme>:<number>`, loosely: a typo in the path should not silently create a participant. */
const PARTY = /^[^\s:/]+:[^\s/]+$/;

/** Bad input found before the dispatcher is called; `violations` name each field. */
class BadRequestError extends Error {
  override readonly name = 'BadRequestError';
  readonly violations: readonly string[];
  constructor(violations: readonly string[]) {
    super(violations.join('; '));
    this.violations = violations;
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw new BadRequestError(
    result.error.issues.map((issue) =>
      issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
    ),
  );
}

function partyOf(req: Request): string {
  const party = String(req.params.party);
  if (!PARTY.test(party)) {
    throw new BadRequestError([
      `party: ${JSON.stringify(party)} is not of the form <scheme>:<number>`,
    ]);
  }
  return party;
}

/** zod gives `key?: T | undefined`; exactOptionalPropertyTypes wants the key left out instead. */
function defined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

export function createAdminRouter(dispatcher: Dispatcher, logger?: Logger): Router {
  const router = express.Router();
  const json = express.json({ limit: '100kb' });

  router.post('/participants/:party/endpoints', json, (req, res) => {
    const party = partyOf(req);
    const input = defined(parse(createEndpointSchema, req.body)) as EndpointInput;
    const { endpoint, secret } = dispatcher.createEndpoint(party, input);
    res.status(201).json({
      id: endpoint.id,
      name: endpoint.name,
      url: endpoint.url,
      credentialType: endpoint.credentialType,
      createdAt: endpoint.createdAt,
      secret,
    });
  });

  router.get('/participants/:party/endpoints', (req, res) => {
    res.json(dispatcher.listEndpoints(partyOf(req)));
  });

  router.delete('/participants/:party/endpoints/:id', (req, res) => {
    dispatcher.deleteEndpoint(partyOf(req), req.params.id);
    res.status(204).end();
  });

  router.post('/participants/:party/endpoints/:id/rotate-secret', (req, res) => {
    res.json(dispatcher.rotateSecret(partyOf(req), req.params.id));
  });

  router.post('/participants/:party/endpoints/:id/test-event', json, async (req, res) => {
    const party = partyOf(req);
    const input = defined(parse(testEventSchema, req.body));
    res.json(await dispatcher.sendTestEvent(party, req.params.id, input));
  });

  router.get('/participants/:party/routing', (req, res) => {
    res.json(dispatcher.getRouting(partyOf(req)));
  });

  router.put('/participants/:party/routing/:category', json, (req, res) => {
    const party = partyOf(req);
    const category = parse(categorySchema, req.params.category);
    const { rules } = parse(routingSchema, req.body);
    dispatcher.setRules(
      party,
      category,
      rules.map((rule) => defined(rule) as RuleInput),
    );
    res.json(dispatcher.getRouting(party));
  });

  router.get('/participants/:party/deliveries', (req, res) => {
    const party = partyOf(req);
    res.json(dispatcher.deliveries(party, defined(parse(deliveriesQuerySchema, req.query))));
  });

  router.get('/deliveries/:eventId', (req, res) => {
    const view = dispatcher.delivery(req.params.eventId);
    if (view === undefined) throw new DeliveryNotFoundError(req.params.eventId);
    res.json(view);
  });

  router.post('/deliveries/:eventId/redeliver', (req, res) => {
    dispatcher.redeliver(req.params.eventId);
    res.status(202).json({ eventId: req.params.eventId, state: 'pending' });
  });

  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const problem = problemFor(error);
    if (problem.status >= 500) logger?.error({ err: error }, 'webhook admin route failed');
    res.status(problem.status).type('application/problem+json').json(problem);
  });

  return router;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  violations?: readonly string[];
}

/** The one place dispatcher errors get an HTTP status. */
export function problemFor(error: unknown): Problem {
  const make = (status: number, title: string, detail: string): Problem => ({
    type: 'about:blank',
    title,
    status,
    detail,
  });
  if (error instanceof BadRequestError) {
    return { ...make(400, 'Invalid request', error.message), violations: error.violations };
  }
  if (error instanceof RoutingRuleError) {
    return { ...make(400, 'Invalid routing rules', error.message), violations: error.violations };
  }
  if (error instanceof InvalidEndpointError || error instanceof TestEventError) {
    return {
      ...make(400, 'Invalid request', error.message),
      violations: [`${error.field}: ${error.message}`],
    };
  }
  if (error instanceof EndpointNotFoundError || error instanceof DeliveryNotFoundError) {
    return make(404, 'Not found', error.message);
  }
  if (error instanceof EndpointLimitError)
    return make(409, 'Endpoint limit reached', error.message);
  if (error instanceof EndpointInUseError) return make(409, 'Endpoint in use', error.message);
  if (error instanceof DeliveryStateError) return make(409, 'Event not exhausted', error.message);
  // The router could not decode a path parameter (`%zz`).
  if (error instanceof URIError) {
    return make(400, 'Invalid request', 'The path contains an invalid percent-escape.');
  }
  // body-parser errors (malformed JSON, body too large) carry a client status.
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const detail =
      status === 400 ? 'The request body is not valid JSON.' : String((error as Error).message);
    return make(status, status === 413 ? 'Body too large' : 'Invalid request', detail);
  }
  return make(500, 'Internal error', 'The request failed; see the provider log.');
}
