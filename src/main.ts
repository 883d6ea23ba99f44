#!/usr/bin/env node
/**
 * Production entry point of the consumer, and the only module that touches `process`:
 * it loads .env, validates the configuration, starts the consumer and stops it on a signal.
 */
import 'dotenv/config';
import { createClaimHolder } from './consumer/claims/claim-holder.ts';
import { readConfig } from './consumer/config.ts';
import { startConsumer } from './consumer/consumer.ts';
import { createLogger } from './consumer/logger.ts';
import { localProcess } from './local-process.ts';

const read = readConfig(process.env);
if ('error' in read) {
  console.error(read.error);
  process.exit(1);
}
const { config } = read;

const logger = createLogger(config.logLevel);
const holder = createClaimHolder('consumer', localProcess());
const consumer = await startConsumer({ config, logger, holder }).catch((error: unknown) => {
  logger.fatal({ err: error }, 'could not start');
  process.exit(1);
});

let stopping = false;
const stop = async (signal: NodeJS.Signals) => {
  // A second Ctrl-C or a repeated SIGTERM must not start a second shutdown.
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  const { forced } = await consumer.close();
  process.exit(forced ? 1 : 0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
