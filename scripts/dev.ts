#!/usr/bin/env node
/**
 * `npm run dev`: the whole flow on one machine. The provider simulator (messaging API, webhook
 * sender and its console at /) on PROVIDER_PORT, the consumer on PORT with an embedded SQLite
 * file, the provider's first endpoint pointing at the consumer, and demo traffic: an invoice
 * from a demo supplier every DEMO_INTERVAL_SECONDS, which the consumer imports with the
 * importer IMPORTER_MODULE names (the file importer by default) and acknowledges, followed by
 * a payment registration. It prints the commands that reconcile and replay against it. Logs are pretty on a
 * terminal and JSON otherwise (log-destination.ts).
 */
import 'dotenv/config';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { createClaimHolder } from '../src/consumer/claims/claim-holder.ts';
import { startConsumer } from '../src/consumer/consumer.ts';
import { ListenError } from '../src/consumer/http/listen.ts';
import { createLogger } from '../src/consumer/logger.ts';
import { readSetup } from '../src/consumer/setup.ts';
import { localProcess } from '../src/local-process.ts';
import { ConfigError, loadProviderConfig } from '../src/provider/config.ts';
import { ProviderListenError, startProvider } from '../src/provider/provider.ts';
import { stopTracing } from '../src/tracing/start-tracing.ts';
import { startConfiguredDemo } from './configured-demo.ts';
import { logDestination } from './log-destination.ts';

const DEV_DATABASE_URL = 'sqlite:./data/dev.db';

let providerConfig: ReturnType<typeof loadProviderConfig>;
try {
  // The dev defaults come first, so anything set in the environment or .env wins.
  providerConfig = loadProviderConfig({
    PROVIDER_TIME_SCALE: '60',
    DEMO_INTERVAL_SECONDS: '20',
    ...process.env,
  });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Invalid configuration: ${error.message}`);
  process.exit(2);
}
const sandboxApi = {
  API_BASE_URL: `http://127.0.0.1:${providerConfig.port}`,
  API_TOKEN: providerConfig.apiToken,
  DATABASE_URL: DEV_DATABASE_URL,
};
const read = await readSetup({
  ...sandboxApi,
  // ADMIN_TOKEN needs 32 characters or more; this one is for a sandbox on loopback only.
  ADMIN_TOKEN: 'dev-admin-token-for-local-use-only',
  WEBHOOK_SECRETS: `whsec_${randomBytes(24).toString('base64url')}`,
  ...process.env,
});
if ('error' in read) {
  console.error(read.error);
  process.exit(2);
}
const { config, importer: chosen, sink: chosenSink } = read.setup;
// The simulator's endpoint signs with the consumer's first secret (the new one in a rotation).
const secret = config.webhookSecrets[0] as string;

const logs = await logDestination({
  terminal: process.stdout.isTTY === true,
  production: providerConfig.production,
});
const logger = createLogger(config.logLevel, logs);
/** A taken port names its variable; anything else is a bug worth its stack. */
const failed = (error: unknown): never => {
  if (error instanceof ListenError || error instanceof ProviderListenError) {
    console.error(error.message);
    process.exit(2);
  }
  throw error;
};
const provider = await startProvider({
  port: providerConfig.port,
  host: providerConfig.host,
  allowedHosts: providerConfig.allowedHosts,
  apiToken: providerConfig.apiToken,
  ...(providerConfig.adminToken === undefined ? {} : { adminToken: providerConfig.adminToken }),
  party: providerConfig.party,
  timeScale: providerConfig.timeScale,
  logger: pino({ level: 'warn' }, logs),
}).catch(failed);
const consumer = await chosen
  .create({ logger, documentsDir: config.documentsDir })
  .then(async (importer) =>
    startConsumer({
      config,
      logger,
      host: '127.0.0.1',
      holder: createClaimHolder('consumer', localProcess()),
      importer,
      sink: await chosenSink.create({ logger }),
    }),
  )
  .catch(async (error: unknown) => {
    await provider.close();
    return failed(error);
  });
const webhookUrl = `${consumer.url}${config.webhookPath}`;
provider.provider.dispatcher.createEndpoint(providerConfig.party, {
  name: 'local consumer',
  url: webhookUrl,
  secret,
});

const tokenNote = providerConfig.adminToken === undefined ? '' : ' (asks for PROVIDER_ADMIN_TOKEN)';
const adminHeader =
  providerConfig.adminToken === undefined
    ? ''
    : " -H 'Authorization: Bearer <PROVIDER_ADMIN_TOKEN>'";
// What the operational commands need to act on this sandbox: its API and its database. Values
// set in the environment or .env are what the consumer runs with, so they are shown as such.
const shell = (value: string) => (/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value}'`);
const reconcileEnv = [
  `DATABASE_URL=${shell(config.databaseUrl)}`,
  `API_BASE_URL=${shell(config.apiBaseUrl)}`,
  `API_TOKEN=${shell(config.apiToken)}`,
].join(' ');
console.log(`
  Sandbox running. Open the console: ${provider.url}/${tokenNote}

    console                   ${provider.url}/   endpoints, routing, delivery log, test events, messages
    messaging API             ${provider.url}    (Authorization: Bearer ${providerConfig.apiToken})
    admin API                 ${provider.url}/admin
    provider listens on       ${provider.address}
    consumer webhook          ${webhookUrl}
    signing secret            ${secret}
    participant               ${providerConfig.party}
    importer                  ${chosen.name}: ${chosen.describe({ documentsDir: config.documentsDir })}
    status sink               ${chosenSink.name}: ${chosenSink.describe()}
    the sink's backlog        curl -H 'Authorization: Bearer ${config.adminToken}' ${consumer.url}/admin/sink
    consumer view             curl -H 'Authorization: Bearer ${config.adminToken}' ${consumer.url}/admin/events
    a message's import        curl -H 'Authorization: Bearer ${config.adminToken}' ${consumer.url}/admin/messages/<messageId>

  Receive an invoice from the demo supplier:
    curl -X POST ${provider.url}/admin/messages/inbound${adminHeader}
  Send one (as your ERP would):
    npm run submit-invoice -- scripts/examples/invoice.json
  Reconcile (import and acknowledge what webhooks missed), in another terminal:
    ${reconcileEnv} npm run reconcile
  Replay dead-lettered events:
    DATABASE_URL=${shell(config.databaseUrl)} npm run replay -- --dead
`);

const demo = startConfiguredDemo(providerConfig, provider.url);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  demo?.stop();
  const { forced } = await consumer.close();
  await provider.close();
  await stopTracing();
  process.exit(forced ? 1 : 0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
