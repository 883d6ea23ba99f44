/**
 * ROLE splits the consumer in two processes on one database: `ingress` answers webhooks and
 * stores them, `worker` imports and acknowledges them. Run here as a user would, on one SQLite
 * file, against the embedded provider.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WebhookEnvelope } from '../../src/protocol/index.ts';
import { type RunningProvider, startProvider } from '../../src/provider/provider.ts';
import { freePort, type RunningScript, startScript, waitForHttp } from '../support/processes.ts';
import { signedRequest } from '../support/webhooks.ts';

const MAIN = join(import.meta.dirname, '../../src/main.ts');
const SECRET = 'whsec_roles_test_secret';
const PARTY = '0192:999999999';

let dir: string;
let provider: RunningProvider;
let published: WebhookEnvelope[];
const processes: RunningScript[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'roles-'));
  published = [];
  provider = await startProvider({
    logger: pino({ level: 'silent' }),
    tap: { publish: (envelope) => published.push(envelope) },
  });
});
afterEach(async () => {
  for (const script of processes.splice(0)) {
    if (script.child.exitCode === null) script.child.kill('SIGKILL');
  }
  await provider.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(role: string) {
  const port = await freePort();
  const script = startScript(MAIN, {
    cwd: dir,
    env: {
      ROLE: role,
      PORT: String(port),
      WEBHOOK_SECRETS: SECRET,
      API_BASE_URL: provider.url,
      API_TOKEN: 'sandbox-token',
      DATABASE_URL: `sqlite:${join(dir, 'consumer.db')}`,
      DOCUMENTS_DIR: join(dir, 'documents'),
      SINK_JOURNAL_FILE: join(dir, 'status-journal.jsonl'),
      LOG_LEVEL: 'warn',
    },
  });
  processes.push(script);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(script, `${base}/readyz`);
  return { script, base };
}

describe('ROLE', () => {
  it('an ingress process stores, a worker process on the same file imports and acknowledges', async () => {
    const res = await request(`${provider.url}/admin/messages/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const { messageId } = (await res.body.json()) as { messageId: string };
    const ingress = await start('ingress');
    const worker = await start('worker');

    // The worker serves no webhooks: only the operations routes.
    const refused = await request(`${worker.base}/webhooks`, { method: 'POST', body: '{}' });
    await refused.body.text();
    expect(refused.statusCode).toBe(404);

    let notified: WebhookEnvelope | undefined;
    for (let i = 0; i < 200 && notified === undefined; i++) {
      notified = published.find(
        (e) => e.messageId === messageId && e.action === 'deliveryNotified' && e.party === PARTY,
      );
      if (notified === undefined) await new Promise((r) => setTimeout(r, 25));
    }
    const req = signedRequest(notified, { secrets: [SECRET] });
    const posted = await request(`${ingress.base}/webhooks`, {
      method: 'POST',
      headers: req.headers,
      body: req.body,
    });
    await posted.body.text();
    expect(posted.statusCode).toBe(204);

    const status = () => provider.provider.model.messages.get(messageId).sides.inbound?.status;
    for (let i = 0; i < 400 && status() !== 'delivered'; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(status()).toBe('delivered');
    // Each process is ready with what it runs: the ingress has no worker of its own.
    const ready = async (base: string) => (await (await fetch(`${base}/readyz`)).json()) as unknown;
    expect(await ready(ingress.base)).toEqual({ status: 'ready', checks: ['store'] });
    expect(await ready(worker.base)).toEqual({ status: 'ready', checks: ['store', 'worker'] });
  });
});
