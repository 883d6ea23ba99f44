/**
 * The ERP stand-in guarded like the simulator (issue 37, point 5). Before, it checked neither
 * Host nor Origin and its token was public (`erp-standin-token`): a web page using DNS rebinding
 * could post invoices through it, which it forwards to the consumer's POST /admin/submissions
 * with the consumer's token. Here, on the real stand-in and on `npm run erp-standin` as a
 * process: a foreign Host and a foreign Origin are 403 and nothing is forwarded; the token is
 * generated for each start and printed, and the old public one opens nothing.
 */
import { createServer } from 'node:http';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { type ErpStandin, startErpStandin } from '../support/erp-standin.ts';
import { REPOSITORY_ROOT } from '../support/fork.ts';
import { closeServer, listenOnLoopback } from '../support/loopback-server.ts';
import { createTestProcesses, freePort, waitForOutput } from '../support/processes.ts';

const OLD_PUBLIC_TOKEN = 'erp-standin-token';

const processes = createTestProcesses();
afterEach(() => processes.killAll());

/** A stand-in for this test, closed once the test finishes. */
async function standinForTest(
  options?: Parameters<typeof startErpStandin>[0],
): Promise<ErpStandin> {
  const erp = await startErpStandin(options);
  onTestFinished(() => erp.close());
  return erp;
}

async function call(
  url: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: { detail?: string } | undefined }> {
  const res = await request(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text === '' ? undefined : JSON.parse(text) };
}

describe('the ERP stand-in', () => {
  it('refuses a foreign Host and a foreign Origin, and forwards nothing they send', async () => {
    // The consumer it forwards to: counts what reaches it.
    const forwarded: string[] = [];
    const consumer = createServer((req, res) => {
      forwarded.push(`${req.method} ${req.url}`);
      req.resume();
      res.writeHead(202, { 'content-type': 'application/json' }).end('{"state":"queued"}');
    });
    const consumerUrl = await listenOnLoopback(consumer);
    onTestFinished(() => closeServer(consumer));
    const erp = await standinForTest({ consumerUrl, consumerToken: 'x'.repeat(32) });
    const auth = { authorization: `Bearer ${erp.token}` };
    const { port } = new URL(erp.url);
    const invoice = { invoice: { invoiceNo: 'REBOUND-1' } };

    // DNS rebinding: the page's own name re-pointed at 127.0.0.1, the token known to the page.
    const rebound = await call(
      erp.url,
      '/outgoing-invoices',
      { ...auth, host: `evil.example:${port}` },
      invoice,
    );
    expect(rebound.status).toBe(403);
    expect(rebound.body?.detail).toMatch(
      /loopback names, IP addresses .*ERP_STANDIN_ALLOWED_HOSTS/,
    );
    // Cross-site: a page of another origin posting to the stand-in's own address.
    const crossSite = await call(
      erp.url,
      '/outgoing-invoices',
      { ...auth, origin: 'https://evil.example' },
      invoice,
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.body?.detail).toMatch(/web page of another origin/);
    expect(forwarded).toEqual([]);
    expect(erp.outgoingInvoices()).toEqual([]);

    // Programs (no Origin, a loopback or IP Host) and its own origin are answered as before.
    expect((await call(erp.url, '/status-changes', auth)).status).toBe(200);
    const localhost = { ...auth, host: `localhost:${port}` };
    expect((await call(erp.url, '/status-changes', localhost)).status).toBe(200);
    const ownOrigin = { ...auth, origin: erp.url };
    expect((await call(erp.url, '/outgoing-invoices', ownOrigin, invoice)).status).toBe(202);
    expect(forwarded).toEqual(['POST /admin/submissions']);
  });

  it('answers to a name it was told about, and to no other', async () => {
    const erp = await standinForTest({ allowedHosts: ['erp.internal'] });
    const auth = { authorization: `Bearer ${erp.token}` };
    expect((await call(erp.url, '/status-changes', { ...auth, host: 'erp.internal' })).status).toBe(
      200,
    );
    expect((await call(erp.url, '/status-changes', { ...auth, host: 'erp.evil' })).status).toBe(
      403,
    );
  });

  it('starts with a token of its own, never the old public one', async () => {
    const erp = await standinForTest();
    const other = await startErpStandin();
    try {
      expect(erp.token).toMatch(/^[0-9a-f]{64}$/);
      expect(other.token).not.toBe(erp.token);
      const old = await call(erp.url, '/status-changes', {
        authorization: `Bearer ${OLD_PUBLIC_TOKEN}`,
      });
      expect(old.status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('as `npm run erp-standin`, prints the token it generated, which is the one that works', async () => {
    const port = await freePort();
    const process_ = processes.start(join(REPOSITORY_ROOT, 'test/support/erp-standin-main.ts'), {
      cwd: REPOSITORY_ROOT,
      env: { ERP_STANDIN_PORT: String(port) },
    });
    await waitForOutput(process_, 'answers programs, not web pages');
    const output = process_.output();
    const token = /^ {2}ERP_TOKEN=(\S+)$/m.exec(output)?.[1];
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(output).toContain(`SINK_ERP_TOKEN=${token}`);
    expect(output).toContain(
      'token: generated for this start (set ERP_STANDIN_TOKEN to choose one)',
    );
    const url = `http://127.0.0.1:${port}`;
    expect((await call(url, '/status-changes', { authorization: `Bearer ${token}` })).status).toBe(
      200,
    );
    const old = await call(url, '/status-changes', { authorization: `Bearer ${OLD_PUBLIC_TOKEN}` });
    expect(old.status).toBe(401);
  });

  it('as `npm run erp-standin`, keeps the token it is given', async () => {
    const port = await freePort();
    const chosen = 'erp-standin-test-chosen-token-0123456789';
    const process_ = processes.start(join(REPOSITORY_ROOT, 'test/support/erp-standin-main.ts'), {
      cwd: REPOSITORY_ROOT,
      env: { ERP_STANDIN_PORT: String(port), ERP_STANDIN_TOKEN: chosen },
    });
    await waitForOutput(process_, 'answers programs, not web pages');
    expect(process_.output()).toContain(`  ERP_TOKEN=${chosen}\n`);
    expect(process_.output()).toContain('  token: ERP_STANDIN_TOKEN\n');
    const url = `http://127.0.0.1:${port}`;
    const answer = await call(url, '/status-changes', { authorization: `Bearer ${chosen}` });
    expect(answer.status).toBe(200);
  });
});
