/**
 * What a console user has running: the provider simulator (whose console the browser opens)
 * and a real consumer, started here in-process on free ports, restartable with other secrets
 * on the same port and database, as a user edits WEBHOOK_SECRETS and restarts.
 */
import { pino } from 'pino';
import {
  type RunningProvider,
  type StartProviderOptions,
  startProvider,
} from '../../../src/provider/provider.ts';
import { startTestConsumer, type TestConsumer } from '../../support/consumer.ts';

export const PARTY = '0192:999999999';

export interface ConsoleSandbox {
  provider: RunningProvider;
  consumer: TestConsumer;
  /** Restarts the consumer with these WEBHOOK_SECRETS, same port, database and documents. */
  restartConsumer(secrets: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startConsoleSandbox(
  options: { provider?: StartProviderOptions; consumerSecrets?: string } = {},
): Promise<ConsoleSandbox> {
  const provider = await startProvider({ logger: pino({ level: 'silent' }), ...options.provider });
  const start = (secrets: string, restart?: { dir: string; port: number }) =>
    startTestConsumer(
      {
        WEBHOOK_SECRETS: secrets,
        API_BASE_URL: provider.url,
        API_TOKEN: 'sandbox-token',
        LOG_LEVEL: 'warn',
        ...(restart === undefined ? {} : { PORT: String(restart.port) }),
      },
      {
        startWorker: true,
        worker: { pollIntervalMs: 20, retryDelay: () => 100 },
        ...(restart === undefined ? {} : { dir: restart.dir }),
      },
    );
  let consumer = await start(options.consumerSecrets ?? 'whsec_not_the_endpoint_secret');
  return {
    provider,
    get consumer() {
      return consumer;
    },
    async restartConsumer(secrets) {
      await consumer.close();
      consumer = await start(secrets, { dir: consumer.dir, port: consumer.port });
    },
    async stop() {
      await consumer.stop();
      await provider.close();
    },
  };
}
