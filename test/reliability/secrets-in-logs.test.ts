/**
 * No secret in the logs, at LOG_LEVEL=trace, of a run that goes down every path, with every
 * process a user runs: `npm run provider` with an admin token (PROVIDER_ADMIN_TOKEN) and an
 * API token; a consumer process configured with two signing secrets (a rotation), a basic-auth
 * webhook credential, an API token and an admin token, fed by that provider (invoices imported
 * and acknowledged through API calls answering 500, hanging and dropping the connection;
 * status events; a test event), hostile requests (wrong signature, wrong credential, wrong
 * admin tokens on both sides), a dead letter and its replay, the operations routes, a SIGTERM;
 * then the consumer again with an API token the service refuses (401: retried, dead-lettered),
 * `npm run reconcile` with that token and with the right one, `npm run replay -- --dead`, and
 * starts refused for bad variables (consumer and provider) with every secret set.
 *
 * Not one secret appears in any output, in any form a log line could carry it: as is, JSON
 * escaped, URL-encoded, base64 (standard and URL-safe) or hex; nor the Basic credential's
 * `user:password` in any of those. One exception, on purpose: the provider's start-up banner
 * prints its API token (`API token: ...`), because the sandbox's token is there to be copied
 * into the consumer's .env; that line is checked to be the only one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type ConsumerProcess,
  runConsumerToExit,
  startConsumerProcess,
  waitUntil,
} from '../security/support/consumer-process.ts';
import {
  type ProviderProcess,
  startProviderProcess,
} from '../security/support/provider-process.ts';
import { freePort, runScript } from '../support/processes.ts';
import { buildEnvelope, signedRequest } from '../support/webhooks.ts';

const PARTY = '0192:999999999';
const API_TOKEN = 'API-token-SECRET-9d3b7c51e0a24f68';
const REVOKED_TOKEN = 'REVOKED-api-token-SECRET-77aa01';
const ADMIN_TOKEN = 'ADMIN-token-SECRET-0123456789abcdef0123';
const WRONG_ADMIN_TOKEN = 'WRONG-admin-token-SECRET-fedcba9876543210';
const PROVIDER_ADMIN_TOKEN = 'PROVIDER-admin-token-SECRET-31415926';
const HOOK_USER = 'hookuser';
// '/', '+' and '=' so that its URL-encoded form differs from it.
const HOOK_PASSWORD = 'HOOK-pass/word+SECRET=5e6f';
const SCRIPTS = join(import.meta.dirname, '../../scripts');

/** Every form in which a log line could carry `secret`. */
function encodings(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [
    ...new Set([
      secret,
      JSON.stringify(secret).slice(1, -1),
      encodeURIComponent(secret),
      bytes.toString('base64'),
      bytes.toString('base64url'),
      bytes.toString('hex'),
    ]),
  ];
}

let dir: string | undefined;
let provider: ProviderProcess | undefined;
const consumers: ConsumerProcess[] = [];
afterAll(async () => {
  for (const consumer of consumers) await consumer.stop();
  await provider?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('secrets never logged', () => {
  it('no signing secret, token or credential in any output at LOG_LEVEL=trace', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'secrets-in-logs-'));
    dir = workDir;
    const outputs: { process: string; text: string }[] = [];
    const p = await startProviderProcess({
      LOG_LEVEL: 'trace',
      PROVIDER_API_TOKEN: API_TOKEN,
      PROVIDER_ADMIN_TOKEN,
    });
    provider = p;

    /** The provider's admin API, with its token unless told otherwise. */
    const admin = async <T = Record<string, unknown>>(
      method: 'GET' | 'POST',
      path: string,
      body?: unknown,
      token = PROVIDER_ADMIN_TOKEN,
    ): Promise<{ status: number; body: T }> => {
      const res = await request(`${p.url}/admin${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.statusCode, body: (await res.body.json()) as T };
    };
    const ok = async <T = Record<string, unknown>>(
      method: 'GET' | 'POST',
      path: string,
      body?: unknown,
    ): Promise<T> => {
      const res = await admin<T>(method, path, body);
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return res.body;
    };
    const inboundStatus = async (messageId: string) =>
      (await ok<{ sides: { inbound?: { status: string } } }>('GET', `/messages/${messageId}`)).sides
        .inbound?.status;

    // The consumer's port is known before it starts: the endpoint's URL names it.
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    expect((await admin('GET', '/messages', undefined, WRONG_ADMIN_TOKEN)).status).toBe(401);
    const endpoint = await ok<{ id: string; secret: string }>(
      'POST',
      `/participants/${PARTY}/endpoints`,
      {
        name: 'consumer',
        url: `${url}/webhooks`,
        credential: { type: 'basic', username: HOOK_USER, password: HOOK_PASSWORD },
      },
    );
    // A rotation: the service signs with both secrets for 24 hours.
    const oldSecret = endpoint.secret;
    const { secret: newSecret } = await ok<{ secret: string }>(
      'POST',
      `/participants/${PARTY}/endpoints/${endpoint.id}/rotate-secret`,
    );
    const env = {
      PORT: String(port),
      DATABASE_URL: `sqlite:${join(workDir, 'consumer.db')}`,
      DOCUMENTS_DIR: join(workDir, 'documents'),
      SINK_JOURNAL_FILE: join(workDir, 'status-journal.jsonl'),
      WEBHOOK_SECRETS: `${newSecret},${oldSecret}`,
      WEBHOOK_CREDENTIAL: `basic:${HOOK_USER}:${HOOK_PASSWORD}`,
      API_BASE_URL: p.url,
      API_TOKEN,
      API_TIMEOUT_MS: '300',
      ADMIN_TOKEN,
      WORKER_MAX_ATTEMPTS: '2',
      LOG_LEVEL: 'trace',
    };
    const c = await startConsumerProcess(env);
    consumers.push(c);

    // The service's traffic: invoices imported and acknowledged through API faults, status
    // events (a tax report, a payment), a test event.
    for (const fault of [
      { mode: '500', count: 1 },
      { mode: 'hang', count: 1, hangMs: 1000 },
      { mode: 'reset', count: 1 },
    ]) {
      await ok('POST', '/faults', fault);
    }
    const invoices: string[] = [];
    for (let i = 0; i < 3; i++) {
      invoices.push((await ok<{ messageId: string }>('POST', '/messages/inbound', {})).messageId);
    }
    const [first, second] = invoices as [string, string, string];
    await ok('POST', `/messages/${first}/tax-report`, {
      jurisdiction: 'Croatia',
      status: 'electronic',
    });
    await ok('POST', `/messages/${second}/payment`, {
      paidAmount: '10.00',
      paymentDate: '2026-11-20',
    });
    await ok('POST', `/participants/${PARTY}/endpoints/${endpoint.id}/test-event`, {
      action: 'deliveryNotified',
    });
    await waitUntil(
      async () => {
        for (const id of invoices) if ((await inboundStatus(id)) !== 'delivered') return false;
        return true;
      },
      'the invoices acknowledged',
      20_000,
    );

    // Hostile and odd requests to the webhook path.
    const basic = Buffer.from(`${HOOK_USER}:${HOOK_PASSWORD}`).toString('base64');
    const credential = { authorization: `Basic ${basic}` };
    const post = async (payload: unknown, headers: Record<string, string>) => {
      const res = await request(`${url}/webhooks`, {
        method: 'POST',
        body: typeof payload === 'string' ? payload : JSON.stringify(payload),
        headers,
      });
      await res.body.text();
      return res.statusCode;
    };
    const signed = (envelope: unknown, secrets = [newSecret, oldSecret]) =>
      signedRequest(envelope, { secrets }).headers;
    const foreign = buildEnvelope();
    expect(
      await post(foreign, { ...signed(foreign, ['whsec_not-the-secret-0000']), ...credential }),
    ).toBe(401);
    const wrongCredential = buildEnvelope();
    expect(
      await post(wrongCredential, {
        ...signed(wrongCredential),
        authorization: `Basic ${Buffer.from(`${HOOK_USER}:${HOOK_PASSWORD}x`).toString('base64')}`,
      }),
    ).toBe(401);
    const unknownAction = buildEnvelope({ action: 'documentAdded' });
    expect(
      await post(unknownAction, { ...signed(unknownAction, [oldSecret]), ...credential }),
    ).toBe(204);
    const notJson = '{"eventId": ';
    expect(
      await post(notJson, {
        ...signedRequest(notJson, { secrets: [newSecret] }).headers,
        ...credential,
      }),
    ).toBe(400);
    // A status event of a message the service does not know: the API answers 404, dead letter.
    const unknownMessage = buildEnvelope({ action: 'deliveryNotified', data: {} });
    expect(await post(unknownMessage, { ...signed(unknownMessage), ...credential })).toBe(204);

    // Operations: with, without and with a wrong admin token; the dead letter and its replay.
    const ops = async (path: string, token?: string, method: 'GET' | 'POST' = 'GET') => {
      const res = await request(`${url}${path}`, {
        method,
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      });
      return { status: res.statusCode, body: await res.body.text() };
    };
    const deadEvents = async () =>
      (
        JSON.parse((await ops('/admin/events?state=dead', ADMIN_TOKEN)).body) as {
          items: { eventId: string; messageId: string }[];
        }
      ).items;
    await waitUntil(
      async () => (await deadEvents()).some((e) => e.eventId === unknownMessage.eventId),
      'the unknown message dead-lettered',
      15_000,
    );
    const replayed = await ops(
      `/admin/events/${unknownMessage.eventId}/replay`,
      ADMIN_TOKEN,
      'POST',
    );
    expect(replayed.status).toBe(202);
    expect((await ops('/admin/events', WRONG_ADMIN_TOKEN)).status).toBe(401);
    expect((await ops('/admin/events')).status).toBe(401);
    expect((await ops(`/admin/messages/${first}`, ADMIN_TOKEN)).status).toBe(200);
    for (const path of ['/healthz', '/readyz', '/metrics'])
      expect((await ops(path)).status).toBe(200);
    await c.stop();
    outputs.push({ process: 'consumer', text: c.output() });

    // The consumer again, with a token the service refuses: 401 is the operator's to fix, so
    // the invoice is retried, then dead-lettered after WORKER_MAX_ATTEMPTS.
    const refusedConsumer = await startConsumerProcess({ ...env, API_TOKEN: REVOKED_TOKEN });
    consumers.push(refusedConsumer);
    const missed = (await ok<{ messageId: string }>('POST', '/messages/inbound', {})).messageId;
    await waitUntil(
      async () => {
        const res = await request(`${url}/admin/events?state=dead`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        const { items } = (await res.body.json()) as { items: { messageId: string }[] };
        return items.some((e) => e.messageId === missed);
      },
      'the invoice dead-lettered for the refused token',
      15_000,
    );
    await refusedConsumer.stop();
    outputs.push({ process: 'consumer with a refused token', text: refusedConsumer.output() });

    // The commands a cron or an operator runs, at trace too.
    const script = async (name: string, scriptEnv: Record<string, string>, args: string[] = []) => {
      const run = await runScript(join(SCRIPTS, name), {
        cwd: workDir,
        env: scriptEnv,
        args,
      });
      outputs.push({ process: `${name} ${args.join(' ')}`, text: run.output });
      return run;
    };
    const refused = await script('reconcile.ts', { ...env, API_TOKEN: REVOKED_TOKEN });
    expect(refused.code, refused.output).toBe(1);
    expect(refused.output).toContain('answered 401');
    const reconciled = await script('reconcile.ts', env);
    expect(reconciled.code, reconciled.output).toBe(0);
    expect(await inboundStatus(missed)).toBe('delivered');
    const replay = await script('replay.ts', env, ['--dead']);
    expect(replay.code, replay.output).toBe(0);

    // Starts refused for a bad variable, with every secret set (and one in a bad URL).
    const badPort = await runConsumerToExit({ ...env, PORT: 'not-a-port' });
    outputs.push({ process: 'consumer, PORT refused', text: badPort.output });
    // 2: a configuration error (issue 24), as every command exits on one.
    expect(badPort.code).toBe(2);
    const badValues = await runConsumerToExit({
      ...env,
      API_BASE_URL: `ftp://user:${API_TOKEN}@api.example.test`,
      WEBHOOK_CREDENTIAL: `basic-${HOOK_PASSWORD}`,
    });
    outputs.push({ process: 'consumer, bad values refused', text: badValues.output });
    expect(badValues.code).toBe(2);
    expect(badValues.output).toContain('WEBHOOK_CREDENTIAL must be');
    const badProvider = await runScript(join(SCRIPTS, 'provider.ts'), {
      cwd: workDir,
      env: {
        LOG_LEVEL: 'trace',
        PROVIDER_PORT: 'nope',
        PROVIDER_API_TOKEN: API_TOKEN,
        PROVIDER_ADMIN_TOKEN,
        PROVIDER_WEBHOOK_SECRET: newSecret,
      },
    });
    outputs.push({ process: 'provider, PROVIDER_PORT refused', text: badProvider.output });
    expect(badProvider.code).toBe(1);
    await p.stop();
    outputs.push({ process: 'provider', text: p.output() });

    // The run logged at the finest levels, and went down the paths it claims to.
    const all = outputs.map((o) => o.text).join('\n');
    expect(all).toMatch(/"level":(10|20),/);
    for (const seen of [
      '"outcome":"unauthorized"',
      'event dead-lettered',
      'messaging API call failed, retrying',
      'inbound message imported and acknowledged',
      'event will be retried',
      'reconcile: found=',
      'webhook delivered',
    ]) {
      expect(all, seen).toContain(seen);
    }

    const secrets = {
      'the new signing secret': newSecret,
      'the old signing secret': oldSecret,
      'the API token': API_TOKEN,
      'the refused API token': REVOKED_TOKEN,
      'the admin token': ADMIN_TOKEN,
      'a wrong admin token presented': WRONG_ADMIN_TOKEN,
      "the provider's admin token": PROVIDER_ADMIN_TOKEN,
      "the credential's password": HOOK_PASSWORD,
      "the credential's user:password": `${HOOK_USER}:${HOOK_PASSWORD}`,
    };
    const found: string[] = [];
    let lines = 0;
    for (const { process, text } of outputs) {
      for (const line of text.split('\n')) {
        lines += 1;
        // The sandbox banner prints the API token on purpose (see the header).
        if (process === 'provider' && line === `API token:           ${API_TOKEN}`) continue;
        for (const [name, secret] of Object.entries(secrets)) {
          for (const form of encodings(secret)) {
            if (line.includes(form)) found.push(`${name} (as ${form}) in ${process}: ${line}`);
          }
        }
      }
    }
    expect(found).toEqual([]);
    expect(outputs.find((o) => o.process === 'provider')?.text).toContain(
      `API token:           ${API_TOKEN}`,
    );
    console.log(
      `secrets in logs: ${lines} lines at trace from ${outputs.length} process runs, ` +
        `${Object.keys(secrets).length} secrets in ${Object.values(secrets).flatMap(encodings).length} forms, none found`,
    );
  }, 90_000);
});
