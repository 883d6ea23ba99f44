#!/usr/bin/env node
/**
 * `npm run dev`: the whole flow on one machine. The provider simulator (messaging API, webhook
 * sender and its console at /) on PROVIDER_PORT, the consumer on PORT with an embedded SQLite
 * file, the provider's first endpoint pointing at the consumer, and demo traffic: an invoice
 * from a demo supplier every DEMO_INTERVAL_SECONDS, which the consumer imports into
 * DOCUMENTS_DIR and acknowledges, followed by a payment registration. Logs are pretty on a
 * terminal and JSON otherwise (log-destination.ts).
 */
import 'dotenv/config';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { createClaimHolder } from '../src/consumer/claims/claim-holder.ts';
import { loadConfig } from '../src/consumer/config.ts';
import { startConsumer } from '../src/consumer/consumer.ts';
import { createLogger } from '../src/consumer/logger.ts';
import { localProcess } from '../src/local-process.ts';
import { loadProviderConfig } from '../src/provider/config.ts';
import { startDemoTraffic } from '../src/provider/demo-traffic.ts';
import { startProvider } from '../src/provider/provider.ts';
import { logDestination } from './log-destination.ts';

let config: ReturnType<typeof loadConfig>;
let providerConfig: ReturnType<typeof loadProviderConfig>;
try {
  // The dev defaults come first, so anything set in the environment or .env wins.
  providerConfig = loadProviderConfig({
    PROVIDER_TIME_SCALE: '60',
    DEMO_INTERVAL_SECONDS: '20',
    ...process.env,
  });
  config = loadConfig({
    API_BASE_URL: `http://127.0.0.1:${providerConfig.port}`,
    API_TOKEN: providerConfig.apiToken,
    DATABASE_URL: 'sqlite:./data/dev.db',
    // ADMIN_TOKEN needs 32 characters or more; this one is for a sandbox on loopback only.
    ADMIN_TOKEN: 'dev-admin-token-for-local-use-only',
    WEBHOOK_SECRETS: `whsec_${randomBytes(24).toString('base64url')}`,
    ...process.env,
  });
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
// The simulator's endpoint signs with the consumer's first secret (the new one in a rotation).
const secret = config.webhookSecrets[0] as string;

const logs = await logDestination({
  terminal: process.stdout.isTTY === true,
  production: providerConfig.production,
});
const provider = await startProvider({
  port: providerConfig.port,
  host: providerConfig.host,
  apiToken: providerConfig.apiToken,
  ...(providerConfig.adminToken === undefined ? {} : { adminToken: providerConfig.adminToken }),
  party: providerConfig.party,
  timeScale: providerConfig.timeScale,
  logger: pino({ level: 'warn' }, logs),
});
const consumer = await startConsumer({
  config,
  logger: createLogger(config.logLevel, logs),
  host: '127.0.0.1',
  holder: createClaimHolder('consumer', localProcess()),
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
console.log(`
  Sandbox running. Open the console: ${provider.url}/${tokenNote}

    console                   ${provider.url}/   endpoints, routing, delivery log, test events, messages
    messaging API             ${provider.url}    (Authorization: Bearer ${providerConfig.apiToken})
    admin API                 ${provider.url}/admin
    provider listens on       ${provider.address}
    consumer webhook          ${webhookUrl}
    signing secret            ${secret}
    participant               ${providerConfig.party}
    documents land in         ${config.documentsDir}/inbound/<shard>/<messageId>/
    consumer view             curl -H 'Authorization: Bearer ${config.adminToken}' ${consumer.url}/admin/events

  Receive an invoice from the demo supplier:
    curl -X POST ${provider.url}/admin/messages/inbound${adminHeader}
  Send one (as your ERP would):
    npm run submit-invoice -- scripts/examples/invoice.json
`);

const demo =
  providerConfig.demoIntervalSeconds > 0
    ? startDemoTraffic({
        url: provider.url,
        adminToken: providerConfig.adminToken,
        intervalMs: providerConfig.demoIntervalSeconds * 1000,
        log: (line) => console.log(line),
      })
    : undefined;

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  demo?.stop();
  const { forced } = await consumer.close();
  await provider.close();
  process.exit(forced ? 1 : 0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
