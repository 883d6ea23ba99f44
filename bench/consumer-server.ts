/**
 * The consumer's real ingress as production runs it: configuration through loadConfig from
 * the environment the runner passes (secret, SQLite file, log level), then startConsumer.
 * The worker is not started: its API calls (to no API here) would compete for the event loop,
 * and the figure to measure is the webhook path alone: HMAC verify, envelope parse,
 * group-committed SQLite insert with synchronous=FULL, 204.
 */
import { loadConfig } from '../src/consumer/config.ts';
import { startConsumer } from '../src/consumer/consumer.ts';
import { createLogger } from '../src/consumer/logger.ts';
import { serveControl } from './server-control.ts';

const config = loadConfig(process.env);
const consumer = await startConsumer({
  config,
  logger: createLogger(config.logLevel),
  host: '127.0.0.1',
  startWorker: false,
});
serveControl(`${consumer.url}${config.webhookPath}`, async () => {
  await consumer.close();
});
