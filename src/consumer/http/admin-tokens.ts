/**
 * Who may use which admin route (docs/operating.md#admin-tokens). Before issue 37 there was one
 * token for everything, so an ERP that only sends invoices held the token that also replays
 * events and reads every message. Now three, each for one kind of holder:
 *
 *   ADMIN_TOKEN          every route: the operator's
 *   ADMIN_SUBMIT_TOKEN   POST /admin/submissions and reading submissions: the ERP's
 *   ADMIN_READ_TOKEN     every GET, no change: a dashboard's, the person on call's
 *
 * Each route names the scoped tokens it accepts besides ADMIN_TOKEN with `accepts(...)`, its
 * first handler; a route registered without one is refused when the router is built
 * (`requireDeclaredScopes`), so a route added later cannot fall open to a scoped token.
 *
 * A request without a token, or with one that is none of these, is 401 (as before); a known
 * token on a route that does not accept it is 403, naming the variables the route accepts.
 */
import type { Request, RequestHandler, Response, Router } from 'express';
import { sendProblem } from './problem.ts';
import { createSecretMatch } from './secret-match.ts';
import type { OperationsSettings } from './settings.ts';

/** The kind of token a request presented: its scope. */
export type AdminScope = 'admin' | 'submit' | 'read';
/** The scopes a route may accept besides ADMIN_TOKEN's, which every route accepts. */
export type ScopedToken = Exclude<AdminScope, 'admin'>;

export type AdminTokens = Pick<
  OperationsSettings,
  'adminToken' | 'adminSubmitToken' | 'adminReadToken'
>;

/** Each scope's variable, for the answers (never a value). */
export const ADMIN_TOKEN_VARIABLE: Readonly<Record<AdminScope, string>> = {
  admin: 'ADMIN_TOKEN',
  submit: 'ADMIN_SUBMIT_TOKEN',
  read: 'ADMIN_READ_TOKEN',
};

/** Whether /admin is served at all: any of the three tokens is set. */
export function adminEnabled(tokens: AdminTokens): boolean {
  return (
    tokens.adminToken !== undefined ||
    tokens.adminSubmitToken !== undefined ||
    tokens.adminReadToken !== undefined
  );
}

export interface AdminAuth {
  /** Before every /admin route: 401 unless the request carries one of the configured tokens. */
  authenticate: RequestHandler;
  /**
   * A route's first handler: 403 for a token whose scope is neither ADMIN_TOKEN nor listed.
   * Routes are added as `router.route(path).get(accepts(...), handler)`: that form still types
   * the handler's path parameters from the path.
   */
  accepts(...scopes: ScopedToken[]): RequestHandler;
}

/** Where authenticate leaves the scope for accepts: the request's own, never shared. */
const scopeOf = new WeakMap<Request, AdminScope>();
/** The handlers accepts() made, so a route without one can be told apart. */
const scopeChecks = new WeakSet<RequestHandler>();

export function createAdminAuth(tokens: AdminTokens): AdminAuth {
  const matchers = (
    [
      ['admin', tokens.adminToken],
      ['submit', tokens.adminSubmitToken],
      ['read', tokens.adminReadToken],
    ] as const
  ).flatMap(([scope, token]) =>
    token === undefined ? [] : [{ scope, matches: createSecretMatch(`Bearer ${token}`) }],
  );

  const authenticate: RequestHandler = (req, res, next) => {
    const given = req.get('authorization');
    // Every configured token is compared, matched or not: the time taken says nothing about
    // which one, if any, the request holds. The values differ (settings.ts), so one matches.
    let scope: AdminScope | undefined;
    for (const matcher of matchers) {
      if (matcher.matches(given)) scope = matcher.scope;
    }
    if (scope !== undefined) {
      scopeOf.set(req, scope);
      return next();
    }
    res.set('WWW-Authenticate', 'Bearer');
    sendProblem(res, {
      status: 401,
      title: 'Unauthorized',
      detail:
        'Send Authorization: Bearer <ADMIN_TOKEN>, or a scoped token (ADMIN_SUBMIT_TOKEN, ADMIN_READ_TOKEN) on a route that accepts it.',
    });
  };

  const accepts = (...scopes: ScopedToken[]): RequestHandler => {
    const allowed = new Set<AdminScope>(['admin', ...scopes]);
    const check: RequestHandler = (req, res, next) => {
      const scope = scopeOf.get(req);
      if (scope !== undefined && allowed.has(scope)) return next();
      forbid(req, res, scope, [...allowed]);
    };
    scopeChecks.add(check);
    return check;
  };

  return { authenticate, accepts };
}

function forbid(
  req: Request,
  res: Response,
  scope: AdminScope | undefined,
  allowed: readonly AdminScope[],
): void {
  const names = allowed.map((s) => ADMIN_TOKEN_VARIABLE[s]);
  const given = scope === undefined ? 'this token' : ADMIN_TOKEN_VARIABLE[scope];
  sendProblem(res, {
    status: 403,
    title: 'Forbidden',
    detail: `${req.method} ${req.baseUrl}${req.route?.path ?? req.path} accepts ${names.join(' or ')}, not ${given}.`,
  });
}

/**
 * Throws when a route of `router` has a method whose first handler is not an accepts() check:
 * such a method would answer every scoped token, which is never what its author meant.
 */
export function requireDeclaredScopes(router: Router): void {
  for (const layer of router.stack) {
    const route = layer.route;
    if (route === undefined) continue;
    const firstByMethod = new Map<string, unknown>();
    for (const handler of route.stack) {
      if (!firstByMethod.has(handler.method)) firstByMethod.set(handler.method, handler.handle);
    }
    for (const [method, first] of firstByMethod) {
      if (scopeChecks.has(first as RequestHandler)) continue;
      throw new Error(
        `admin route ${method.toUpperCase()} ${route.path} does not say which tokens it accepts: make accepts(...) (http/admin-tokens.ts) its first handler`,
      );
    }
  }
}
