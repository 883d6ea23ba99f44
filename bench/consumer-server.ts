/**
 * The consumer as production runs it: configuration through loadConfig from the environment the
 * runner passes, then startConsumer. BENCH_WORKER=on starts the worker too (it handles every
 * event it receives); otherwise the figure is the webhook path alone: HMAC verify, envelope
 * parse, the durable insert on the SQLite writer thread, 204.
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
  startWorker: process.env.BENCH_WORKER === 'on',
});
serveControl(`${consumer.url}${config.webhookPath}`, async () => {
  await consumer.close();
});
