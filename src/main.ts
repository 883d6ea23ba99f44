#!/usr/bin/env node
/**
 * Production entry point of the consumer, and the only module that touches `process`:
 * it loads .env, validates the configuration (the core's and the importer's together), starts
 * the consumer and stops it on a signal. Exit 2: the configuration, or a port, must change.
 */
import 'dotenv/config';
import { createClaimHolder } from './consumer/claims/claim-holder.ts';
import { startConsumer } from './consumer/consumer.ts';
import { ListenError } from './consumer/http/listen.ts';
import { createLogger } from './consumer/logger.ts';
import { readSetup } from './consumer/setup.ts';
import { localProcess } from './local-process.ts';
import { stopTracing } from './tracing/start-tracing.ts';

const read = await readSetup(process.env);
if ('error' in read) {
  console.error(read.error);
  process.exit(2);
}
const { config, importer: chosen, sink: chosenSink } = read.setup;

const logger = createLogger(config.logLevel);
const holder = createClaimHolder('consumer', localProcess());
const consumer = await chosen
  .create({ logger, documentsDir: config.documentsDir })
  .then((importer) => {
    logger.info(
      {
        importer: chosen.name,
        module: chosen.file,
        imports: chosen.describe({ documentsDir: config.documentsDir }),
      },
      'importer ready',
    );
    return chosenSink.create({ logger }).then((sink) => {
      logger.info(
        { sink: chosenSink.name, module: chosenSink.file, statusChanges: chosenSink.describe() },
        'status sink ready',
      );
      return startConsumer({ config, logger, holder, importer, sink });
    });
  })
  .catch((error: unknown) => {
    if (error instanceof ListenError) {
      logger.fatal(error.message);
      console.error(error.message);
      process.exit(2);
    }
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
  // After the drain, so the spans of the last imports and acknowledgements are exported too.
  await stopTracing();
  process.exit(forced ? 1 : 0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
