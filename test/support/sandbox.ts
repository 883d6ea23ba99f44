/**
 * The consumer and the embedded provider side by side over real HTTP, as a user runs them:
 * the provider's first endpoint is the consumer's webhook URL, and the consumer's messaging
 * API is the provider. Every event the provider publishes is also recorded in `published`.
 */
import { request } from 'undici';
import { onTestFinished } from 'vitest';
import type { Importer } from '../../src/consumer/importer/index.ts';
import type { StatusSink } from '../../src/consumer/sink/define-sink.ts';
import type { WebhookEnvelope } from '../../src/protocol/index.ts';
import type { RunningProvider, StartProviderOptions } from '../../src/provider/provider.ts';
import { startTestConsumer, TEST_SECRET, type TestConsumer } from './consumer.ts';
import { startRecordingProvider } from './recording-provider.ts';
import { postSigned } from './webhooks.ts';

export const SANDBOX_PARTY = '0192:999999999';
/** The consumer's ADMIN_TOKEN in the sandbox (at least 32 characters). */
export const SANDBOX_ADMIN_TOKEN = 'sandbox-consumer-admin-token-0123456789';
/** Its ADMIN_SUBMIT_TOKEN: submissions only, the token an ERP holds. */
export const SANDBOX_SUBMIT_TOKEN = 'sandbox-consumer-submit-token-0123456789';

interface SideView {
  deliveryStatus: string | null;
  taxReportingStatus: string | null;
  lifecycleStatus: string | null;
  validationStatus: string | null;
  documentNo: string | null;
  importedAt: string | null;
  acknowledgedAt: string | null;
  lastEventAt: string | null;
}
/** GET /admin/messages/:messageId of the consumer (docs/operating.md's external contract). */
export interface ConsumerMessageView {
  messageId: string;
  inbound: SideView | null;
  outbound: SideView | null;
}

export interface Sandbox {
  provider: RunningProvider;
  consumer: TestConsumer;
  published: WebhookEnvelope[];
  /** POST/GET to the provider's admin API; throws on a non-2xx answer. */
  admin<T = unknown>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<T>;
  /** A call to the provider's messaging API as the sandbox participant. */
  api<T = unknown>(path: string, method?: 'GET' | 'POST'): Promise<T>;
  /** The consumer's view of a message (GET /admin/messages/:id). */
  view(messageId: string): Promise<{ status: number; body: ConsumerMessageView }>;
  /** Posts an envelope to the consumer exactly as the service would. */
  post(envelope: WebhookEnvelope): Promise<number>;
  /** Sends an invoice from the demo supplier to the sandbox participant; returns its id. */
  sendInboundInvoice(input?: Record<string, unknown>): Promise<string>;
  /** Stops the consumer, keeping its database and documents (an outage). */
  stopConsumer(): Promise<void>;
  /** Starts it again on the same port with the same database and documents. */
  restartConsumer(): Promise<void>;
  stop(): Promise<void>;
}

export async function startSandbox(
  options: {
    provider?: StartProviderOptions;
    consumerEnv?: Record<string, string>;
    importer?: Importer;
    /** The consumer's status sink, kept across restarts; fast retries (test/support/consumer.ts). */
    sink?: StatusSink;
    /** Route the provider's webhooks to the consumer. Off, a test posts events itself. @default true */
    webhooks?: boolean;
  } = {},
): Promise<Sandbox> {
  const provider = await startRecordingProvider(options.provider);
  const startConsumer = (restart?: { dir: string; port: number }) =>
    startTestConsumer(
      {
        ...(restart === undefined ? {} : { PORT: String(restart.port) }),
        API_BASE_URL: provider.url,
        API_TOKEN: 'sandbox-token',
        API_TIMEOUT_MS: '1000',
        ADMIN_TOKEN: SANDBOX_ADMIN_TOKEN,
        ADMIN_SUBMIT_TOKEN: SANDBOX_SUBMIT_TOKEN,
        LOG_LEVEL: 'warn',
        ...options.consumerEnv,
      },
      {
        startWorker: true,
        worker: { pollIntervalMs: 20, retryDelay: () => 100 },
        // A lost reply is looked up after 300 ms, not 10 s.
        submissionWorker: { pollMs: 20, retryBaseMs: 50, retryMaxMs: 200, lookupDelayMs: 300 },
        ...(options.importer === undefined ? {} : { importer: options.importer }),
        ...(options.sink === undefined
          ? {}
          : { sink: options.sink, sinkWorker: { pollMs: 20, retryBaseMs: 50, retryMaxMs: 200 } }),
        ...(restart === undefined ? {} : { dir: restart.dir }),
      },
    );
  let consumer = await startConsumer();
  if (options.webhooks ?? true) {
    provider.provider.dispatcher.createEndpoint(SANDBOX_PARTY, {
      name: 'consumer under test',
      url: consumer.webhookUrl,
      secret: TEST_SECRET,
    });
  }

  const call = async (
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await request(url, {
      method: method as 'GET',
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text === '' ? undefined : JSON.parse(text) };
  };
  const sandbox: Sandbox = {
    provider,
    get consumer() {
      return consumer;
    },
    published: provider.published,
    async admin(method, path, body) {
      const res = await call(method, `${provider.url}/admin${path}`, body);
      if (res.status >= 300)
        throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async api(path, method = 'GET') {
      const res = await call(method, `${provider.url}${path}`, undefined, {
        authorization: 'Bearer sandbox-token',
      });
      if (res.status >= 300)
        throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    view: (messageId) =>
      call('GET', `${consumer.url}/admin/messages/${messageId}`, undefined, {
        authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}`,
      }),
    post: (envelope) => postSigned(consumer.webhookUrl, envelope, { secret: TEST_SECRET }),
    async sendInboundInvoice(input = {}) {
      const { messageId } = await sandbox.admin<{ messageId: string }>(
        'POST',
        '/messages/inbound',
        input,
      );
      return messageId;
    },
    async stopConsumer() {
      await consumer.close();
    },
    async restartConsumer() {
      await consumer.close();
      // Same port (the provider's endpoint URL), same database and documents folder.
      consumer = await startConsumer({ dir: consumer.dir, port: consumer.port });
    },
    async stop() {
      await consumer.stop();
      await provider.close();
    },
  };
  return sandbox;
}

/**
 * startSandbox() for the running test, stopped once the test has finished, passed or failed:
 * the set-up of a file whose tests each have a sandbox of their own.
 */
export async function startSandboxForTest(
  options?: Parameters<typeof startSandbox>[0],
): Promise<Sandbox> {
  const sandbox = await startSandbox(options);
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `ms`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
