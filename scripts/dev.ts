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
import { ConfigError, loadConfig } from '../src/consumer/config.ts';
import { startConsumer } from '../src/consumer/consumer.ts';
import { createLogger } from '../src/consumer/logger.ts';
import { localProcess } from '../src/local-process.ts';
import { loadProviderConfig } from '../src/provider/config.ts';
import { startProvider } from '../src/provider/provider.ts';
import { logDestination } from './log-destination.ts';

const env = process.env;
const secret =
  env.WEBHOOK_SECRETS?.split(',')[0]?.trim() || `whsec_${randomBytes(24).toString('base64url')}`;
const demoSeconds = Number(env.DEMO_INTERVAL_SECONDS ?? '20');
let config: ReturnType<typeof loadConfig>;
let providerConfig: ReturnType<typeof loadProviderConfig>;
try {
  if (!(demoSeconds >= 0))
    throw new ConfigError([
      `DEMO_INTERVAL_SECONDS must be a number of seconds (got ${JSON.stringify(env.DEMO_INTERVAL_SECONDS)})`,
    ]);
  providerConfig = loadProviderConfig({ PROVIDER_TIME_SCALE: '60', ...env });
  config = loadConfig({
    API_BASE_URL: `http://127.0.0.1:${providerConfig.port}`,
    API_TOKEN: providerConfig.apiToken,
    DATABASE_URL: 'sqlite:./data/dev.db',
    // ADMIN_TOKEN needs 32 characters or more; this one is for a sandbox on loopback only.
    ADMIN_TOKEN: 'dev-admin-token-for-local-use-only',
    ...env,
    WEBHOOK_SECRETS: secret,
  });
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}

const logs = await logDestination({
  terminal: process.stdout.isTTY === true,
  production: env.NODE_ENV === 'production',
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

async function admin(path: string, body: unknown) {
  const res = await fetch(`${provider.url}/admin${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(providerConfig.adminToken === undefined
        ? {}
        : { authorization: `Bearer ${providerConfig.adminToken}` }),
    },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { messageId: string };
}

async function demoInvoice() {
  try {
    const { messageId } = await admin('/messages/inbound', {});
    console.log(`demo: invoice ${messageId} sent by the demo supplier`);
    // Once the consumer has acknowledged it, the supplier registers a payment.
    setTimeout(() => {
      admin(`/messages/${messageId}/payment`, {
        paidAmount: '1250.00',
        paymentDate: new Date().toISOString().slice(0, 10),
        actor: '0192:111111111',
      }).then(
        () => console.log(`demo: payment registered for ${messageId}`),
        (error: unknown) => console.error(`demo: payment failed: ${String(error)}`),
      );
    }, 3000).unref();
  } catch (error) {
    console.error(`demo: could not send an invoice: ${String(error)}`);
  }
}
await demoInvoice();
const demo = demoSeconds > 0 ? setInterval(demoInvoice, demoSeconds * 1000) : undefined;

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  clearInterval(demo);
  const { forced } = await consumer.close();
  await provider.close();
  process.exit(forced ? 1 : 0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
