/**
 * The management console (docs/webhook-endpoints.md#endpoints, docs/webhook-endpoints.md#routing, docs/webhook-endpoints.md#test-events, docs/retries.md#retry-schedule): a page at `/` and its
 * assets under `/console/`. The page is a shell of static HTML, CSS and JavaScript modules run
 * by the browser as they are (no build step); every piece of data and every change goes
 * through the admin API under /admin, with its token when PROVIDER_ADMIN_TOKEN is set. So the
 * console has no rule of its own and no way around the admin boundary: what the admin API
 * refuses, the console shows as refused.
 *
 * The shell itself holds no data, so it is served without the token; the admin API then asks
 * for it. A strict Content-Security-Policy allows only this origin's scripts and styles, which
 * with the client's text-only rendering keeps an endpoint's answer (shown in the delivery log)
 * from ever running as code.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Response, Router } from 'express';

const ASSETS = fileURLToPath(new URL('./assets/', import.meta.url));
const PAGE = fileURLToPath(new URL('./page.html', import.meta.url));

const SECURITY_HEADERS = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // A development tool: a changed asset must show on the next reload.
  'Cache-Control': 'no-cache',
};

export interface ConsoleOptions {
  /** The sandbox participant the console manages. */
  party: { identifier: string; name: string };
  /** Whether the admin API asks for PROVIDER_ADMIN_TOKEN; the console then asks the user. */
  adminTokenRequired: boolean;
  /** The submit-invoice body the invoice editor starts from. */
  exampleInvoice: () => unknown;
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

export function createConsoleRouter(options: ConsoleOptions): Router {
  const router = Router();
  const page = readFileSync(PAGE, 'utf8')
    .replaceAll('{{partyId}}', escapeHtml(options.party.identifier))
    .replaceAll('{{partyName}}', escapeHtml(options.party.name))
    .replaceAll('{{adminToken}}', options.adminTokenRequired ? 'required' : 'none');
  const secure = (res: Response) => res.set(SECURITY_HEADERS);

  router.get('/', (_req, res) => {
    secure(res).type('html').send(page);
  });
  router.get('/console/example-invoice.json', (_req, res) => {
    secure(res).json(options.exampleInvoice());
  });
  router.use(
    '/console',
    (_req, res, next) => {
      secure(res);
      next();
    },
    express.static(ASSETS, { index: false, redirect: false }),
  );
  return router;
}
