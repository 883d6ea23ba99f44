/**
 * Consumers for the conformance runner's tests: ours, and four deliberately broken variants
 * of it, each one duty broken the way real integrations break it:
 *
 *   unverified     a gateway in front re-signs every request: the consumer answers 204 to
 *                  anything, verified or not
 *   imports-twice  two consumers with a database each behind one URL; a balancer sends each
 *                  event's repeats to the other one, so a duplicate is imported again
 *   ack-first      mark-as-delivered as soon as an inbound deliveryNotified arrives, before
 *                  anything is fetched or imported
 *   fails-on-503   a client wrapper that reports a message failed when the API answers 503
 *
 * Every variant runs our real consumer; only the named piece around it is wrong.
 */
import { pino } from 'pino';
import { request } from 'undici';
import { runConformance } from '../../src/conformance/runner.ts';
import { createCredentialCheck } from '../../src/consumer/http/credential.ts';
import {
  createFileImporter,
  type Importer,
  PermanentImportError,
} from '../../src/consumer/importer/index.ts';
import { createReconciler, formatSummary } from '../../src/consumer/reconcile.ts';
import {
  parseCredentialSpec,
  signatureHeader,
  verifySignature,
  type WebhookCredential,
} from '../../src/protocol/index.ts';
import { startTestConsumer, TEST_SECRET, type TestConsumer } from './consumer.ts';
import { type RunningProxy, startProxy } from './http-proxy.ts';
import { freePort } from './processes.ts';

export const REJECTED_INVOICE_NO = 'CONFORMANCE-REJECT';
export const CONSUMER_ADMIN_TOKEN = 'conformance-consumer-admin-token-0123456789';
/** WEBHOOK_CREDENTIAL of every consumer here, and the runner's --credential. */
export const CREDENTIAL = 'header:X-Api-Key:conformance-key-0123';
const API_TOKEN = 'sandbox-token';

export type Variant = 'ours' | 'unverified' | 'imports-twice' | 'ack-first' | 'fails-on-503';

export interface ConsumerUnderTest {
  /** The URL the runner sends webhooks to. */
  url: string;
  /** The folder of the consumer's database and documents. */
  dir: string;
  secret: string;
  reconcile(): Promise<string>;
  /** The consumer's view of a message, for --state-url. */
  stateUrl: string;
  stateToken: string;
  stop(): Promise<void>;
}

/** The file importer, except that it rejects REJECTED_INVOICE_NO for good. */
function rejectingImporter(consumer: () => TestConsumer): Importer {
  let files: Importer | undefined;
  return {
    async import(input) {
      const invoice = JSON.parse((await input.transaction.bytes()).toString('utf8'));
      if (invoice?.invoice?.invoiceNo === REJECTED_INVOICE_NO) {
        throw new PermanentImportError(`invoice ${REJECTED_INVOICE_NO} is not ours`);
      }
      files ??= createFileImporter({
        documentsDir: `${consumer().dir}/documents`,
        logger: pino({ level: 'silent' }),
      });
      return files.import(input);
    },
  };
}

async function ours(apiBaseUrl: string): Promise<TestConsumer> {
  let consumer: TestConsumer | undefined;
  consumer = await startTestConsumer(
    {
      API_BASE_URL: apiBaseUrl,
      API_TOKEN,
      API_TIMEOUT_MS: '2000',
      ADMIN_TOKEN: CONSUMER_ADMIN_TOKEN,
      WEBHOOK_CREDENTIAL: CREDENTIAL,
      LOG_LEVEL: 'silent',
    },
    {
      startWorker: true,
      worker: { pollIntervalMs: 20, retryDelay: () => 100 },
      importer: rejectingImporter(() => consumer as TestConsumer),
    },
  );
  return consumer;
}

function reconcilerOf(consumer: TestConsumer) {
  const importer = rejectingImporter(() => consumer);
  return async () => {
    const reconcile = createReconciler({
      api: consumer.api,
      importer,
      messages: consumer.store.messages,
      events: consumer.store.events,
      claims: consumer.store.claims,
      logger: pino({ level: 'silent' }),
      now: Date.now,
      holder: 'conformance-reconcile',
      leaseMs: 30_000,
      importTimeoutMs: 10_000,
    });
    return `reconcile: ${formatSummary(await reconcile())}`;
  };
}

/** Starts `variant` for a simulator that will listen on `simulatorPort`. */
export async function startConsumerUnderTest(
  variant: Variant,
  simulatorPort: number,
): Promise<ConsumerUnderTest> {
  const simulator = `http://127.0.0.1:${simulatorPort}`;
  const proxies: RunningProxy[] = [];
  const consumers: TestConsumer[] = [];
  const started = async (apiBaseUrl = simulator) => {
    const consumer = await ours(apiBaseUrl);
    consumers.push(consumer);
    return consumer;
  };
  let url: string;
  let main: TestConsumer;

  if (variant === 'fails-on-503') {
    const api = await startProxy({
      target: simulator,
      async after(req, status) {
        const mid = /^\/messages\/([^/?]+)\//.exec(req.url)?.[1];
        if (status === 503 && mid !== undefined)
          await callApi(simulator, `/messages/${mid}/mark-as-failed`);
      },
    });
    proxies.push(api);
    main = await started(api.url);
    url = main.webhookUrl;
  } else {
    main = await started();
    url = main.webhookUrl;
  }

  if (variant === 'unverified') {
    const proxy = await startProxy({
      target: new URL(main.webhookUrl).origin,
      before(req) {
        const timestamp = Math.floor(Date.now() / 1000);
        req.headers['svc-webhook-signature'] = signatureHeader({
          secrets: [TEST_SECRET],
          timestamp,
          body: req.body,
        });
      },
    });
    proxies.push(proxy);
    url = `${proxy.url}${new URL(main.webhookUrl).pathname}`;
  } else if (variant === 'imports-twice') {
    const other = await started();
    const seen = new Map<string, number>();
    const proxy = await startProxy({
      target(req) {
        const eventId = req.headers['svc-webhook-event-id'] ?? '';
        const n = seen.get(eventId) ?? 0;
        seen.set(eventId, n + 1);
        return new URL((n % 2 === 0 ? main : other).webhookUrl).origin;
      },
    });
    proxies.push(proxy);
    url = `${proxy.url}${new URL(main.webhookUrl).pathname}`;
  } else if (variant === 'ack-first') {
    // Acknowledges what it verified, on arrival; the consumer's own acknowledgement after its
    // import is answered here and never reaches the service, as a consumer that acknowledges
    // first would never send it.
    const acknowledged = new Set<string>();
    const api = await startProxy({
      target: simulator,
      before(req) {
        const mid = /^\/messages\/([^/?]+)\/mark-as-delivered/.exec(req.url)?.[1];
        return mid !== undefined && acknowledged.has(decodeURIComponent(mid)) ? 204 : undefined;
      },
    });
    proxies.push(api);
    await main.stop();
    consumers.length = 0;
    main = await started(api.url);
    const check = createCredentialCheck(parseCredentialSpec(CREDENTIAL) as WebhookCredential);
    const proxy = await startProxy({
      target: new URL(main.webhookUrl).origin,
      async before(req) {
        try {
          verifySignature({
            header: req.headers['svc-webhook-signature'],
            body: req.body,
            secrets: [TEST_SECRET],
            toleranceSeconds: 300,
          });
        } catch {
          return undefined;
        }
        if (!check(req.headers)) return undefined;
        const event = JSON.parse(req.body.toString('utf8'));
        if (
          event.action === 'deliveryNotified' &&
          event.transfer === 'inbound' &&
          event.test === false &&
          !acknowledged.has(event.messageId)
        ) {
          acknowledged.add(event.messageId);
          await callApi(simulator, `/messages/${event.messageId}/mark-as-delivered`);
        }
        return undefined;
      },
    });
    proxies.push(proxy);
    url = `${proxy.url}${new URL(main.webhookUrl).pathname}`;
  }

  return {
    url,
    dir: main.dir,
    secret: TEST_SECRET,
    reconcile: reconcilerOf(main),
    stateUrl: `${main.url}/admin/messages/{messageId}`,
    stateToken: CONSUMER_ADMIN_TOKEN,
    async stop() {
      for (const proxy of proxies) await proxy.close();
      for (const consumer of consumers) await consumer.stop();
    },
  };
}

async function callApi(base: string, path: string): Promise<void> {
  const res = await request(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_TOKEN}` },
  });
  await res.body.dump();
}

/** Runs the whole suite against `variant`; the ids of the duties that failed, in report order. */
export async function failedDuties(variant: Variant): Promise<string[]> {
  const port = await freePort();
  const consumer = await startConsumerUnderTest(variant, port);
  try {
    const report = await runConformance(
      {
        url: consumer.url,
        secret: consumer.secret,
        credential: parseCredentialSpec(CREDENTIAL) as WebhookCredential,
        port,
        host: '127.0.0.1',
        apiToken: 'sandbox-token',
        rejectInvoiceNo: REJECTED_INVOICE_NO,
        stateUrl: consumer.stateUrl,
        stateToken: consumer.stateToken,
        timeoutMs: 10_000,
        burst: 20,
        json: false,
      },
      { reconcile: consumer.reconcile },
    );
    if (report.duties.some((d) => d.result === 'not checked')) {
      throw new Error('every duty should have been checked');
    }
    return report.duties.filter((d) => d.result === 'fail').map((d) => d.id);
  } finally {
    await consumer.stop();
  }
}
