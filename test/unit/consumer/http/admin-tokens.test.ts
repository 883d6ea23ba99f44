/**
 * Every admin route says which tokens it accepts (src/consumer/http/admin-tokens.ts): a route,
 * or one method of it, added without accepts(...) first would answer every scoped token, so the
 * router refuses to be built with one.
 */
import { Router } from 'express';
import { describe, expect, it } from 'vitest';
import {
  createAdminAuth,
  requireDeclaredScopes,
} from '../../../../src/consumer/http/admin-tokens.ts';

const { accepts } = createAdminAuth({
  adminToken: 'a'.repeat(32),
  adminSubmitToken: undefined,
  adminReadToken: undefined,
});

describe('requireDeclaredScopes', () => {
  it('passes routes whose every method starts with accepts()', () => {
    const router = Router();
    router.use('/admin', (_req, _res, next) => next());
    router
      .route('/admin/things')
      .get(accepts('read'), (_req, res) => res.end())
      .post(accepts(), (_req, res) => res.end());
    expect(() => requireDeclaredScopes(router)).not.toThrow();
  });

  it('refuses a route that says nothing, naming it', () => {
    const router = Router();
    router.get('/admin/open', (_req, res) => res.end());
    expect(() => requireDeclaredScopes(router)).toThrow(
      /admin route GET \/admin\/open does not say which tokens it accepts/,
    );
  });

  it('refuses a method of a declared route that says nothing, and a check that comes second', () => {
    const router = Router();
    router
      .route('/admin/things')
      .get(accepts('read'), (_req, res) => res.end())
      .post((_req, res) => res.end());
    expect(() => requireDeclaredScopes(router)).toThrow(/POST \/admin\/things/);
    const late = Router();
    late.route('/admin/late').get((_req, _res, next) => next(), accepts('read'));
    expect(() => requireDeclaredScopes(late)).toThrow(/GET \/admin\/late/);
  });
});
