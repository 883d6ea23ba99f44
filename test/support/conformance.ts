/**
 * Consumers for the conformance runner's tests: ours, and deliberately broken variants of it,
 * each one duty broken the way real integrations break it:
 *
 *   unverified              a gateway in front re-signs every request: the consumer answers
 *                           204 to anything, verified or not
 *   imports-twice           two consumers with a database each behind one URL, importing into
 *                           one shared folder; a balancer sends each event's repeats to the
 *                           other one, so a duplicate is imported again (the importer rightly
 *                           answers "already imported")
 *   duplicate-as-rejection  the same, with an importer that takes the folder's "already there"
 *                           for a rejection: its own earlier import is marked failed
 *   ack-first               mark-as-delivered as soon as an inbound deliveryNotified arrives,
 *                           before anything is fetched or imported
 *   fails-on-503            a client wrapper that reports a message failed when the API answers
 *                           503
 *   no-watermark            a gateway dates every status event by its arrival: the consumer
 *                           behind it applies status events in the order they arrive
 *   slow                    a gateway holds every answer back 6 s
 *
 * Every variant runs our real consumer; only the named piece around it is wrong.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import { request } from 'undici';
import type { ConformanceReport } from '../../src/conformance/report.ts';
import { runConformance } from '../../src/conformance/runner.ts';
import { createCredentialCheck } from '../../src/consumer/http/webhook/credential.ts';
import {
  createFileImporter,
  type Importer,
  PermanentImportError,
} from '../../src/consumer/importer/index.ts';
import { createReconciler, formatSummary } from '../../src/consumer/reconcile/reconciler.ts';
import {
  isStatusAction,
  parseCredentialSpec,
  signatureHeader,
  verifySignature,
  type WebhookCredential,
} from '../../src/protocol/index.ts';
import { startTestConsumer, TEST_SECRET, type TestConsumer } from './consumer.ts';
import { freePort } from './free-port.ts';
import { type ProxiedRequest, type RunningProxy, startProxy } from './http-proxy.ts';

export const REJECTED_INVOICE_NO = 'CONFORMANCE-REJECT';
export const CONSUMER_ADMIN_TOKEN = 'conformance-consumer-admin-token-0123456789';
/** WEBHOOK_CREDENTIAL of every consumer here, and the runner's --credential. */
export const CREDENTIAL = 'header:X-Api-Key:conformance-key-0123';
const API_TOKEN = 'sandbox-token';

export type Variant =
  | 'ours'
  | 'unverified'
  | 'imports-twice'
  | 'duplicate-as-rejection'
  | 'ack-first'
  | 'fails-on-503'
  | 'no-watermark'
  | 'slow';

/** How late the slow variant's gateway passes each answer on: past the service's 5 s. */
const SLOW_ANSWER_MS = 6_000;
/**
 * How far ahead of the clock the no-watermark variant's gateway dates a status event. Dated
 * by arrival alone, an event would still lose to a fetch made after it arrived (the consumer
 * keeps a fetched value as of the service's Date header), and whether the fetch came first
 * would decide the verdict; a minute ahead, every later arrival is newer than any fetch.
 */
const STATUS_CLOCK_AHEAD_MS = 60_000;

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

/**
 * The file importer, except that it rejects REJECTED_INVOICE_NO for good. With
 * `duplicateAsRejection` it is the wrong importer of src/consumer/importer/README.md ("the 409
 * trap"): the folder's answer that it already holds the message, which after a lost reply is
 * the consumer's own earlier import, becomes a permanent rejection.
 */
function rejectingImporter(documentsDir: () => string, duplicateAsRejection = false): Importer {
  let files: Importer | undefined;
  return {
    async import(input) {
      const invoice = JSON.parse((await input.transaction.bytes()).toString('utf8'));
      if (invoice?.invoice?.invoiceNo === REJECTED_INVOICE_NO) {
        throw new PermanentImportError(`invoice ${REJECTED_INVOICE_NO} is not ours`);
      }
      files ??= createFileImporter({
        documentsDir: documentsDir(),
        logger: pino({ level: 'silent' }),
      });
      const result = await files.import(input);
      if (duplicateAsRejection && result.status === 'already_imported') {
        throw new PermanentImportError(
          `duplicate: message ${input.messageId} is already at ${result.location}`,
        );
      }
      return result;
    },
  };
}

interface OurConsumer {
  consumer: TestConsumer;
  importer: Importer;
}

/**
 * Our consumer, calling the messaging API at `apiBaseUrl`; it imports into its own folder, or
 * into `target` when given (a folder shared with another consumer).
 */
async function ours(
  apiBaseUrl: string,
  target?: { dir: string; duplicateAsRejection: boolean },
): Promise<OurConsumer> {
  let consumer: TestConsumer | undefined;
  const importer = rejectingImporter(
    () => target?.dir ?? `${(consumer as TestConsumer).dir}/documents`,
    target?.duplicateAsRejection,
  );
  consumer = await startTestConsumer(
    {
      API_BASE_URL: apiBaseUrl,
      API_TOKEN,
      API_TIMEOUT_MS: '2000',
      ADMIN_TOKEN: CONSUMER_ADMIN_TOKEN,
      WEBHOOK_CREDENTIAL: CREDENTIAL,
      LOG_LEVEL: 'silent',
      // Stopped after the runner closed its simulator: a call still retrying against it (the
      // status events of the last acknowledgements) has nothing left to reach.
      SHUTDOWN_TIMEOUT_MS: '1000',
    },
    {
      startWorker: true,
      worker: { pollIntervalMs: 20, retryDelay: () => 100 },
      importer,
    },
  );
  return { consumer, importer };
}

function reconcilerOf({ consumer, importer }: OurConsumer) {
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

/** Whether the service signed this request, as the consumer will check it. */
function signedByService(req: ProxiedRequest): boolean {
  try {
    verifySignature({
      header: req.headers['svc-webhook-signature'],
      body: req.body,
      secrets: [TEST_SECRET],
      toleranceSeconds: 300,
    });
    return true;
  } catch {
    return false;
  }
}

function resign(req: ProxiedRequest): void {
  req.headers['svc-webhook-signature'] = signatureHeader({
    secrets: [TEST_SECRET],
    timestamp: Math.floor(Date.now() / 1000),
    body: req.body,
  });
}

/** The URL of the webhook path behind a proxy in front of `consumer`. */
const behind = (proxy: RunningProxy, consumer: TestConsumer) =>
  `${proxy.url}${new URL(consumer.webhookUrl).pathname}`;
const originOf = (consumer: TestConsumer) => new URL(consumer.webhookUrl).origin;

/** Starts `variant` for a simulator that will listen on `simulatorPort`. */
export async function startConsumerUnderTest(
  variant: Variant,
  simulatorPort: number,
): Promise<ConsumerUnderTest> {
  const simulator = `http://127.0.0.1:${simulatorPort}`;
  const proxies: RunningProxy[] = [];
  const consumers: TestConsumer[] = [];
  // Run at stop: `first` before the proxies close, `last` once the consumers stopped.
  const first: (() => void)[] = [];
  const last: (() => void)[] = [];
  let target: { dir: string; duplicateAsRejection: boolean } | undefined;
  const started = async (apiBaseUrl = simulator) => {
    const running = await ours(apiBaseUrl, target);
    consumers.push(running.consumer);
    return running;
  };
  let main: OurConsumer;
  let url: string;

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
  } else if (variant === 'imports-twice' || variant === 'duplicate-as-rejection') {
    // One target behind two consumers, as two deployments sharing one ERP would.
    const dir = mkdtempSync(join(tmpdir(), 'conformance-target-'));
    last.push(() => rmSync(dir, { recursive: true, force: true }));
    target = { dir, duplicateAsRejection: variant === 'duplicate-as-rejection' };
    main = await started();
  } else {
    main = await started();
  }
  url = main.consumer.webhookUrl;

  if (variant === 'unverified') {
    const proxy = await startProxy({
      target: originOf(main.consumer),
      before(req) {
        resign(req);
        return undefined;
      },
    });
    proxies.push(proxy);
    url = behind(proxy, main.consumer);
  } else if (variant === 'imports-twice' || variant === 'duplicate-as-rejection') {
    const other = await started();
    const seen = new Map<string, number>();
    const proxy = await startProxy({
      target(req) {
        const eventId = req.headers['svc-webhook-event-id'] ?? '';
        const n = seen.get(eventId) ?? 0;
        seen.set(eventId, n + 1);
        return originOf((n % 2 === 0 ? main : other).consumer);
      },
    });
    proxies.push(proxy);
    url = behind(proxy, main.consumer);
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
    await main.consumer.stop();
    consumers.length = 0;
    main = await started(api.url);
    const check = createCredentialCheck(parseCredentialSpec(CREDENTIAL) as WebhookCredential);
    const proxy = await startProxy({
      target: originOf(main.consumer),
      async before(req) {
        if (!signedByService(req) || !check(req.headers)) return undefined;
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
    url = behind(proxy, main.consumer);
  } else if (variant === 'no-watermark') {
    // Only what the service signed is changed (and signed again), so every signature duty is
    // still the consumer's own.
    const proxy = await startProxy({
      target: originOf(main.consumer),
      before(req) {
        if (!signedByService(req)) return undefined;
        const event = JSON.parse(req.body.toString('utf8'));
        if (!isStatusAction(event.action)) return undefined;
        event.occurredAt = new Date(Date.now() + STATUS_CLOCK_AHEAD_MS).toISOString();
        req.body = Buffer.from(JSON.stringify(event));
        resign(req);
        return undefined;
      },
    });
    proxies.push(proxy);
    url = behind(proxy, main.consumer);
  } else if (variant === 'slow') {
    // The consumer has stored and answered each event; the service hears the answer 6 s later.
    const stopping = new AbortController();
    first.push(() => stopping.abort());
    const proxy = await startProxy({
      target: originOf(main.consumer),
      after: () =>
        delay(SLOW_ANSWER_MS, undefined, { signal: stopping.signal }).catch(() => undefined),
    });
    proxies.push(proxy);
    url = behind(proxy, main.consumer);
  }

  return {
    url,
    dir: main.consumer.dir,
    secret: TEST_SECRET,
    reconcile: reconcilerOf(main),
    stateUrl: `${main.consumer.url}/admin/messages/{messageId}`,
    stateToken: CONSUMER_ADMIN_TOKEN,
    async stop() {
      for (const cleanup of first) cleanup();
      for (const proxy of proxies) await proxy.close();
      for (const consumer of consumers) await consumer.stop();
      for (const cleanup of last) cleanup();
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

/** Runs the whole suite against `variant`, every duty checked. */
export async function reportOn(variant: Variant): Promise<ConformanceReport> {
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
    return report;
  } finally {
    await consumer.stop();
  }
}

/** The ids of the duties that failed, in report order. */
export const failedIds = (report: ConformanceReport) =>
  report.duties.filter((d) => d.result === 'fail').map((d) => d.id);

/** The evidence of one duty, one line each. */
export const evidenceOf = (report: ConformanceReport, id: string) =>
  report.duties.find((d) => d.id === id)?.evidence.join('\n') ?? '';

/** Runs the whole suite against `variant`; the ids of the duties that failed, in report order. */
export async function failedDuties(variant: Variant): Promise<string[]> {
  return failedIds(await reportOn(variant));
}
