/**
 * The consumer is down for longer than the provider's two hours of retries (sped up here);
 * afterwards `npm run reconcile` (the script, as cron runs it) finds the never-acknowledged
 * message, imports it and acknowledges it. It imports through the journal importer, with the
 * importer under test (importer-under-test.ts); the journal shows what it imported.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/consumer/store/sqlite/sqlite-store.ts';
import { type RunningProvider, startProvider } from '../../src/provider/provider.ts';
import { sandboxConsumerEnv } from '../support/consumer-env.ts';
import { RECONCILE_SCRIPT } from '../support/entry-points.ts';
import { createImportJournal, type ImportJournal } from '../support/importer-under-test.ts';
import { runScript } from '../support/processes.ts';
import { providerAdmin } from '../support/provider-admin.ts';
import { testFolder } from '../support/test-folder.ts';

const PARTY = '0192:999999999';

let provider: RunningProvider;
let dir: string;
let journal: ImportJournal;

beforeEach(async () => {
  dir = testFolder('reconcile-e2e-');
  journal = await createImportJournal(dir);
  // The consumer has run here before: reconcile works on its database, never creates one.
  await (await openSqliteStore(join(dir, 'consumer.db'))).close();
  // 2 hours of retries pass in about 70 ms.
  provider = await startProvider({ logger: pino({ level: 'silent' }), timeScale: 100_000 });
  // The consumer's address, with nothing listening: it is down.
  provider.provider.dispatcher.createEndpoint(PARTY, {
    name: 'down',
    url: 'http://127.0.0.1:9/webhooks',
  });
});
afterEach(async () => {
  await provider.close();
});

async function reconcile(env: Record<string, string> = {}) {
  return runScript(RECONCILE_SCRIPT, {
    cwd: dir,
    env: {
      ...sandboxConsumerEnv({ secret: 'whsec_unused_here', apiBaseUrl: provider.url, dir }),
      API_TIMEOUT_MS: '500',
      LOG_LEVEL: 'silent',
      ...journal.env,
      ...env,
    },
  });
}

const admin = providerAdmin(() => provider.url);

/** One import() call, answered `imported` with a location. */
const IMPORTED_ONCE = { calls: 1, imported: 1, errors: 0, locations: [expect.any(String)] };

async function exhausted(messageId: string) {
  for (let i = 0; i < 200; i++) {
    const log = provider.provider.dispatcher.deliveries(PARTY, { messageId, state: 'exhausted' });
    if (log.some((d) => d.action === 'deliveryNotified')) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the provider never exhausted its retries');
}

describe('npm run reconcile', () => {
  it('acknowledges what the consumer missed during an outage, then finds nothing', async () => {
    const { messageId } = await admin('POST', '/messages/inbound', {});
    await exhausted(messageId);
    expect((await admin('GET', `/messages/${messageId}`)).sides.inbound.status).toBe(
      'pendingdelivery',
    );

    const first = await reconcile();
    expect(first.output).toContain(
      'reconcile: found=1 imported=1 acknowledged=1 rejected=0 busy=0 refreshed=0 failed=0 alreadyImported=0\n',
    );
    expect(first.code).toBe(0);
    expect((await admin('GET', `/messages/${messageId}`)).sides.inbound.status).toBe('delivered');
    expect(journal.byMessage().get(messageId)).toMatchObject(IMPORTED_ONCE);

    const second = await reconcile();
    expect(second.output).toContain('found=0');
    expect(second.code).toBe(0);
  });

  it('exits non-zero when a message cannot be handled, and succeeds on the next run', async () => {
    const { messageId } = await admin('POST', '/messages/inbound', {});
    await exhausted(messageId);
    await admin('POST', '/faults', {
      count: 1000,
      mode: '503',
      pathPrefix: `/messages/${messageId}/documents`,
    });

    const failing = await reconcile();
    expect(failing.output).toContain(
      'found=1 imported=0 acknowledged=0 rejected=0 busy=0 refreshed=0 failed=1 alreadyImported=0',
    );
    expect(failing.code).toBe(1);

    await request(`${provider.url}/admin/faults`, { method: 'DELETE' }).then((r) => r.body.text());
    const retried = await reconcile();
    expect(retried.output).toContain('found=1 imported=1 acknowledged=1');
    expect(retried.code).toBe(0);
    expect(journal.byMessage().get(messageId)).toMatchObject(IMPORTED_ONCE);
  });

  it('counts apart a message the importer already had (a database restored from an older backup)', async () => {
    const { messageId } = await admin('POST', '/messages/inbound', {});
    await exhausted(messageId);
    // The import happens, but the service cannot be told: the message stays pending, and the
    // run counts it as failed (it counts what it finished).
    await admin('POST', '/faults', {
      count: 1000,
      mode: '503',
      pathPrefix: `/messages/${messageId}/mark-as-delivered`,
    });
    const unacknowledged = await reconcile();
    expect(unacknowledged.output).toContain(
      'found=1 imported=0 acknowledged=0 rejected=0 busy=0 refreshed=0 failed=1 alreadyImported=0',
    );
    await request(`${provider.url}/admin/faults`, { method: 'DELETE' }).then((r) => r.body.text());

    // A database without the import's record, beside the same documents: the importer says it
    // has the message already, and the run only acknowledges it.
    await (await openSqliteStore(join(dir, 'restored.db'))).close();
    const restored = await reconcile({ DATABASE_URL: `sqlite:${join(dir, 'restored.db')}` });
    expect(restored.output).toContain(
      'found=1 imported=0 acknowledged=1 rejected=0 busy=0 refreshed=0 failed=0 alreadyImported=1',
    );
    expect(restored.code).toBe(0);
    expect((await admin('GET', `/messages/${messageId}`)).sides.inbound.status).toBe('delivered');
  });

  it('exits 1, rather than hanging, when the messaging API cannot be reached', async () => {
    // A run that never ends would hold a cron slot (or a Forbid CronJob) for good.
    const { code, output } = await reconcile({ API_BASE_URL: 'http://127.0.0.1:9' });
    expect(output).toContain('reconcile: failed: GET /messages');
    expect(code).toBe(1);
  });

  it('exits 1 saying so when the service refuses the API token', async () => {
    const refused = await reconcile({ API_TOKEN: 'not-the-sandbox-token' });
    expect(refused.output).toContain('reconcile: failed: GET /messages');
    expect(refused.output).toContain('answered 401');
    expect(refused.code).toBe(1);
  });

  it('exits 2 naming DATABASE_URL, creating nothing, when no database is there', async () => {
    const elsewhere = join(dir, 'elsewhere.db');
    const { code, output } = await reconcile({ DATABASE_URL: `sqlite:${elsewhere}` });
    expect(output).toContain(`DATABASE_URL sqlite:${elsewhere}: there is no database at`);
    expect(code).toBe(2);
    expect(existsSync(elsewhere)).toBe(false);
  });

  it('exits 2 naming the variable when the configuration is wrong', async () => {
    const { code, output } = await runScript(RECONCILE_SCRIPT, {
      cwd: dir,
      env: { API_TOKEN: 't' },
    });
    expect(code).toBe(2);
    expect(output).toContain('API_BASE_URL is required');
  });
});
