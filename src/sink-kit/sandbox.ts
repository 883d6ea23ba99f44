/**
 * Where the sink kit runs a sink as the consumer runs it: the embedded simulator of the service
 * and a real consumer beside it, on free loopback ports, with a temporary SQLite database and
 * documents folder (removed at the end), the sink delivered to by the consumer's own outbox
 * loop. The simulator sends no webhooks itself: a case posts the events, signed as the service
 * signs them, in the order it wants (shuffled, repeated), and the loops poll fast, so that a
 * case takes seconds.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Logger, pino } from 'pino';
import { getGlobalDispatcher, request } from 'undici';
import { callSimulatorAdmin } from '../check-runner/simulator-admin.ts';
import { createClaimHolder } from '../consumer/claims/claim-holder.ts';
import { loadConfig } from '../consumer/config.ts';
import { type RunningConsumer, startConsumer } from '../consumer/consumer.ts';
import { createFileImporter } from '../consumer/importer/index.ts';
import type { StatusSink } from '../consumer/sink/index.ts';
import type { SinkOutboxStats } from '../consumer/store/sink-outbox.ts';
import type { WebhookEnvelope } from '../protocol/index.ts';
import { DEFAULT_API_TOKEN, type RunningProvider, startProvider } from '../provider/provider.ts';
import type { StoredEndpoint } from '../provider/webhooks/endpoints.ts';
import { buildWebhookRequest, sendWebhook } from '../provider/webhooks/send-webhook.ts';

/** The consumer's signing secret: it and the kit are the only ones to know it. */
const SECRET = 'whsec_sink-kit-sandbox-secret';

export interface KitSandbox {
  /** The simulator's base URL. */
  simulator: string;
  /** The participant the consumer stands for. */
  party: string;
  /** Every event the simulator published, oldest first (none is sent: a case posts them). */
  published: readonly WebhookEnvelope[];
  /** A call to the simulator's admin API; an answer of 300 or more throws. */
  admin<T = unknown>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T>;
  /** A POST to the simulator's messaging API as the participant; a non-2xx answer throws. */
  api(path: string): Promise<void>;
  /** Posts an event to the consumer as the service would; resolves to the status code. */
  post(envelope: WebhookEnvelope): Promise<number>;
  /** Resolves once the consumer's worker has handled every event it stored. */
  drainWorker(): Promise<void>;
  /** The consumer's sink outbox: how many notices wait, how many of those failed. */
  outbox(): Promise<SinkOutboxStats>;
  /** The last error the sink gave for a notice still waiting, if any. */
  lastSinkError(): Promise<string | undefined>;
  /** Stops the consumer, keeping its database (a process that ends). */
  stopConsumer(): Promise<void>;
  /** Starts the consumer again with the same database (the next process). */
  restartConsumer(): Promise<void>;
  /** Stops both and removes the temporary folder. */
  stop(): Promise<void>;
}

/**
 * `sink` is kept across restarts (a case that restarts swaps what is behind it); `logger`
 * is the consumer's.
 */
export async function startKitSandbox(options: {
  sink: StatusSink;
  logger: Logger;
}): Promise<KitSandbox> {
  const published: WebhookEnvelope[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'sink-kit-'));
  let provider: RunningProvider | undefined;
  try {
    provider = await startProvider({
      port: 0,
      host: '127.0.0.1',
      logger: pino({ level: 'silent' }),
      tap: { publish: (envelope) => published.push(envelope) },
    });
    const consumer = await startConsumerSide({ ...options, provider, dir });
    const running = provider;
    return {
      ...simulatorSide(running, published),
      ...consumer,
      async stop() {
        await consumer.stopConsumer();
        await running.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await provider?.close();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The simulator's part: what it published, and calls to its admin and messaging APIs. */
function simulatorSide(
  provider: RunningProvider,
  published: readonly WebhookEnvelope[],
): Pick<KitSandbox, 'simulator' | 'party' | 'published' | 'admin' | 'api'> {
  return {
    simulator: provider.url,
    party: provider.provider.model.participants.sandbox.identifier,
    published,
    admin: (method, path, body) =>
      callSimulatorAdmin(
        provider.url,
        { method, path, body },
        (status, text) => new Error(`simulator ${method} /admin${path}: ${status} ${text}`),
      ),
    async api(path) {
      const res = await request(`${provider.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEFAULT_API_TOKEN}` },
      });
      const text = await res.body.text();
      if (res.statusCode >= 300) {
        throw new Error(`simulator POST ${path}: ${res.statusCode} ${text}`);
      }
    },
  };
}

type ConsumerSide = Pick<
  KitSandbox,
  'post' | 'drainWorker' | 'outbox' | 'lastSinkError' | 'stopConsumer' | 'restartConsumer'
>;

/** The consumer's part: started against the simulator, on a database in `dir`. */
async function startConsumerSide(options: {
  sink: StatusSink;
  logger: Logger;
  provider: RunningProvider;
  dir: string;
}): Promise<ConsumerSide> {
  const config = loadConfig({
    PORT: '0',
    WEBHOOK_SECRETS: SECRET,
    API_BASE_URL: options.provider.url,
    API_TOKEN: DEFAULT_API_TOKEN,
    API_TIMEOUT_MS: '1000',
    DATABASE_URL: `sqlite:${join(options.dir, 'consumer.db')}`,
    DOCUMENTS_DIR: join(options.dir, 'documents'),
  });
  const start = () =>
    startConsumer({
      config,
      logger: options.logger,
      host: '127.0.0.1',
      // One consumer at a time on this database: another holder of its process is one that ended.
      holder: createClaimHolder('sink-kit', { hostname: 'sink-kit', pid: 1, isAlive: () => false }),
      importer: createFileImporter({ documentsDir: config.documentsDir, logger: options.logger }),
      sink: options.sink,
      startWorker: true,
      worker: { pollIntervalMs: 20, retryDelay: () => 100 },
      sinkWorker: { pollMs: 20, retryBaseMs: 50, retryMaxMs: 200 },
    });
  let consumer: RunningConsumer | undefined = await start();
  const running = () => {
    if (consumer === undefined) throw new Error('the consumer is stopped');
    return consumer;
  };
  // The consumer's endpoint as the service would hold it; its URL is the running consumer's.
  const endpoint: Omit<StoredEndpoint, 'url'> = {
    id: 'sink-kit',
    party: options.provider.provider.model.participants.sandbox.identifier,
    name: 'the consumer under the sink kit',
    secret: SECRET,
    retiredSecrets: [],
    createdAt: Date.now(),
  };
  return {
    async post(envelope) {
      // Signed, headed and sent by the simulator's own code, as its dispatcher sends a webhook.
      const webhook = buildWebhookRequest({
        envelope,
        body: JSON.stringify(envelope),
        endpoint: { ...endpoint, url: `${running().url}${config.webhookPath}` },
        nowMs: Date.now(),
      });
      const sent = await sendWebhook(webhook, { dispatcher: getGlobalDispatcher() });
      if (sent.statusCode !== undefined) return sent.statusCode;
      throw new Error(
        `the consumer did not answer ${envelope.action} ${envelope.eventId}: ${sent.error}`,
      );
    },
    drainWorker: () => running().worker.drain(),
    outbox: () => running().store.sinkOutbox.stats(),
    async lastSinkError() {
      const [row] = await running().store.sinkOutbox.list({ limit: 1, state: 'failing' });
      return row?.lastError ?? undefined;
    },
    async stopConsumer() {
      await consumer?.close();
      consumer = undefined;
    },
    async restartConsumer() {
      await consumer?.close();
      consumer = await start();
    },
  };
}
