/**
 * The console's page and assets (issue 9): served at / without the admin token (the page holds
 * no data; the admin API asks for the token), under a Content-Security-Policy that lets only
 * this origin's scripts run, and with nothing fetched from elsewhere.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startTestProvider, type TestProvider } from './helpers.ts';

const ASSETS = join(import.meta.dirname, '../../../src/provider/console/assets');

let provider: TestProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

it('serves the page at / with the participant, even when the admin API needs a token', async () => {
  provider = await startTestProvider({ adminToken: 'console-page-admin-token' });
  const res = await fetch(`${provider.url}/`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/html');
  expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  const html = await res.text();
  expect(html).toContain('<meta name="sandbox-party" content="0192:999999999">');
  expect(html).toContain('<meta name="admin-token" content="required">');
  // The data stays behind the token.
  expect((await fetch(`${provider.url}/admin/participants`)).status).toBe(401);
});

it('serves every asset as the browser runs it, and nothing else', async () => {
  provider = await startTestProvider();
  for (const name of readdirSync(ASSETS)) {
    const res = await fetch(`${provider.url}/console/${name}`);
    expect(res.status, name).toBe(200);
    const type = res.headers.get('content-type') ?? '';
    if (name.endsWith('.js')) expect(type).toContain('javascript');
    if (name.endsWith('.css')) expect(type).toContain('text/css');
  }
  expect((await fetch(`${provider.url}/console/page.html`)).status).not.toBe(200);
  expect((await fetch(`${provider.url}/console/../console-router.ts`)).status).not.toBe(200);
});

it('loads nothing from another origin', () => {
  const sources = [
    readFileSync(join(ASSETS, '../page.html'), 'utf8'),
    ...readdirSync(ASSETS).map((name) => readFileSync(join(ASSETS, name), 'utf8')),
  ].join('\n');
  expect(sources).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
  expect(sources).not.toMatch(/@import|url\(\s*["']?https?:/);
  expect(sources).not.toMatch(/fetch\(\s*['"`]https?:/);
});
