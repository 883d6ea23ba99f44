/**
 * No credential leaves through a module (issue 37): the consumer process, with the example
 * erp-http importer and erp-http sink against the simulator, books invoices in an ERP that
 * echoes the request's Authorization header in every way (echoing-erp.ts) in a 422 (a refusal,
 * marked as failed at the service), a 401 and a 503 (retried, importError) and every status
 * change (the sink's lastError). Neither token appears, in any form, in what the simulator
 * received, the consumer's store, its admin API or its log; nor do the user:password of the
 * modules' URLs. Locations the ERP answers are stored printable and bounded.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { REMOTE_TEXT_LIMIT } from '../../src/consumer/text/error-text.ts';
import { sandboxConsumerEnv } from '../support/consumer-env.ts';
import { providerAdmin } from '../support/provider-admin.ts';
import { type RecordingProvider, startRecordingProvider } from '../support/recording-provider.ts';
import { testFolder } from '../support/test-folder.ts';
import {
  type ConsumerProcess,
  runConsumerToExit,
  startConsumerProcess,
  waitUntil,
} from './support/consumer-process.ts';
import {
  CONTROL_DOCUMENT_NO_SHOWN,
  type EchoingErp,
  leakedPieces,
  startEchoingErp,
} from './support/echoing-erp.ts';

const SECRET = 'whsec_module_redaction_secret';
const PARTY = '0192:999999999';
const ADMIN_TOKEN = 'module-redaction-admin-token-0123456789';
// No word in them (a piece of a word would be found in any text); a slash and a plus, so that
// their percent-encoded and base64url forms differ from the plain one.
const ERP_TOKEN = 'Zq7xW9k/3Jv+8Tn2Rb5';
const SINK_TOKEN = 'Yh4pL8m/6Qc+1Vd7Gs3';
const URL_PASSWORD = 'Url-Pass-6d1f0b';

// One scene a test: the simulator, the echoing ERP and the consumer process between them.
let provider: RecordingProvider | undefined;
let consumer: ConsumerProcess | undefined;

/** The simulator and the ERP for this test; they and its consumer stop once it finishes. */
async function startSimulatorAndErp(): Promise<{ provider: RecordingProvider; erp: EchoingErp }> {
  const scene = { provider: await startRecordingProvider(), erp: await startEchoingErp() };
  provider = scene.provider;
  onTestFinished(async () => {
    await consumer?.stop();
    await scene.erp.close();
    await scene.provider.close();
    consumer = provider = undefined;
  });
  return scene;
}

const admin = providerAdmin(() => (provider as RecordingProvider).url);

async function consumerGet(path: string): Promise<{ status: number; text: string }> {
  const res = await request(`${(consumer as ConsumerProcess).url}${path}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return { status: res.statusCode, text: await res.body.text() };
}

interface View {
  inbound: {
    importLocation: string | null;
    importAttempts: number;
    importError: string | null;
    failureReason: string | null;
  } | null;
}
/** The simulator's webhooks go to the consumer under test, signed with SECRET. */
function routeWebhooksToConsumer(): void {
  (provider as RecordingProvider).provider.dispatcher.createEndpoint(PARTY, {
    name: 'consumer under test',
    url: `${(consumer as ConsumerProcess).url}/webhooks`,
    secret: SECRET,
  });
}

/** A counterparty sends an invoice with this number; its message id. */
const send = async (invoiceNo: string) =>
  (await admin<{ messageId: string }>('POST', '/messages/inbound', { invoice: { invoiceNo } }))
    .messageId;

const view = async (messageId: string) =>
  JSON.parse((await consumerGet(`/admin/messages/${messageId}`)).text) as View;

describe('a module whose ERP echoes its token', () => {
  it('sends, stores and logs neither token nor URL password, in any form', async () => {
    const dir = testFolder('module-redaction-');
    const { provider, erp } = await startSimulatorAndErp();
    const withPassword = erp.url.replace('http://', `http://erp-user:${URL_PASSWORD}@`);
    consumer = await startConsumerProcess({
      ...sandboxConsumerEnv({ secret: SECRET, apiBaseUrl: provider.url, dir }),
      ADMIN_TOKEN,
      IMPORTER_MODULE: 'erp-http',
      ERP_BASE_URL: withPassword,
      ERP_TOKEN,
      SINK_MODULE: 'erp-http',
      SINK_ERP_URL: withPassword,
      SINK_ERP_TOKEN: SINK_TOKEN,
    });
    routeWebhooksToConsumer();
    const refused = await send('ECHO-422');
    const unauthorized = await send('ECHO-401');
    const unavailable = await send('ECHO-503');

    await waitUntil(
      async () => (await admin(`GET`, `/messages/${refused}`)).sides.inbound.status === 'failed',
      'the refused invoice marked as failed at the service',
    );
    // A second attempt each, so what is logged on every retry is in the log twice.
    for (const id of [unauthorized, unavailable]) {
      await waitUntil(
        async () => ((await view(id)).inbound?.importAttempts ?? 0) >= 2,
        `a second import attempt of ${id}`,
        15_000,
      );
    }
    await waitUntil(
      async () =>
        (await consumerGet('/admin/sink?state=failing')).text.includes('lastError":"POST'),
      'a status change refused by the ERP',
    );

    // The echoes reached the consumer, and what it kept of them says what went wrong.
    const reason = (await view(refused)).inbound?.failureReason;
    expect(reason).toMatch(
      /^the ERP refused the document: invalid credential; plain=Bearer \[redacted\]/,
    );
    expect((await view(unauthorized)).inbound?.importError).toMatch(/answered 401: .*\[redacted\]/);
    expect((await view(unavailable)).inbound?.importError).toMatch(/answered 503: .*\[redacted\]/);
    expect(erp.authorizations()).toContainEqual({
      path: '/documents',
      authorization: `Bearer ${ERP_TOKEN}`,
    });
    expect(erp.authorizations()).toContainEqual({
      path: '/status-changes',
      authorization: `Bearer ${SINK_TOKEN}`,
    });

    const ids = [refused, unauthorized, unavailable];
    const simulator = JSON.stringify([
      await Promise.all(ids.map((id) => admin('GET', `/messages/${id}`))),
      await Promise.all(ids.map((id) => admin('GET', `/api-calls?messageId=${id}`))),
      provider.published,
    ]);
    expect(simulator).toContain('[redacted]');
    const answers = [
      ...(await Promise.all(ids.map((id) => consumerGet(`/admin/messages/${id}`)))),
      await consumerGet('/admin/events?limit=100'),
      await consumerGet('/admin/sink?limit=100'),
    ]
      .map((answer) => answer.text)
      .join('\n');
    await consumer.stop();
    const log = consumer.output();
    expect(log).toContain('"importer ready"');
    expect(log).toContain('http://[redacted]@127.0.0.1');
    const store = ['consumer.db', 'consumer.db-wal']
      .map((file) => join(dir, file))
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file).toString('latin1'))
      .join('\n');

    for (const [what, text] of Object.entries({ simulator, answers, log, store })) {
      expect({ what, erp: leakedPieces(text, ERP_TOKEN) }).toEqual({ what, erp: [] });
      expect({ what, sink: leakedPieces(text, SINK_TOKEN) }).toEqual({ what, sink: [] });
      expect({ what, password: text.includes(URL_PASSWORD) }).toEqual({ what, password: false });
    }
  }, 60_000);

  it('stores a location the ERP answered printable and bounded, and logs it so', async () => {
    const dir = testFolder('module-redaction-location-');
    const { provider, erp } = await startSimulatorAndErp();
    consumer = await startConsumerProcess({
      ...sandboxConsumerEnv({ secret: SECRET, apiBaseUrl: provider.url, dir }),
      ADMIN_TOKEN,
      IMPORTER_MODULE: 'erp-http',
      ERP_BASE_URL: erp.url,
      ERP_TOKEN,
    });
    routeWebhooksToConsumer();
    const control = await send('LOC-CONTROL');
    const huge = await send('LOC-HUGE');
    for (const id of [control, huge]) {
      await waitUntil(
        async () => (await admin('GET', `/messages/${id}`)).sides.inbound.status === 'delivered',
        `${id} delivered`,
      );
    }

    expect((await view(control)).inbound?.importLocation).toBe(CONTROL_DOCUMENT_NO_SHOWN);
    const long = (await view(huge)).inbound?.importLocation ?? '';
    expect(long).toMatch(/^ERP-9+…$/);
    expect(long).toHaveLength(REMOTE_TEXT_LIMIT);
    await consumer.stop();
    const lines = consumer.output().split('\n');
    const imported = lines.filter((line) => line.includes('"inbound message imported'));
    expect(
      imported.map((line) => (JSON.parse(line) as { location: string }).location).sort(),
    ).toEqual([CONTROL_DOCUMENT_NO_SHOWN, long].sort());
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(5_000);
  }, 60_000);
});

describe("a module's settings", () => {
  it('are refused without showing the password of a URL', async () => {
    const { code, output } = await runConsumerToExit({
      WEBHOOK_SECRETS: SECRET,
      API_BASE_URL: 'http://127.0.0.1:9',
      API_TOKEN: 'module-settings-token',
      IMPORTER_MODULE: 'erp-http',
      ERP_BASE_URL: `ftp://erp-user:${URL_PASSWORD}@erp.example`,
      ERP_TOKEN,
      SINK_MODULE: 'erp-http',
      SINK_ERP_URL: `gopher://${SINK_TOKEN}@erp.example`,
    });
    expect(code).toBe(2);
    expect(output).toContain(
      'ERP_BASE_URL: must be an http(s) URL (importer erp-http) (got "ftp://[redacted]@erp.example")',
    );
    expect(output).toContain('SINK_ERP_URL: must be an http(s) URL (sink erp-http)');
    expect(output).not.toContain(URL_PASSWORD);
    expect(leakedPieces(output, SINK_TOKEN)).toEqual([]);
  });
});
