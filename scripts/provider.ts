#!/usr/bin/env node
/** `npm run provider`: the provider simulator alone, configured by PROVIDER_* variables. */
import 'dotenv/config';
import { pino } from 'pino';
import { ConfigError, loadProviderCa, loadProviderConfig } from '../src/provider/config.ts';
import { ProviderListenError, startProvider } from '../src/provider/provider.ts';
import { startConfiguredDemo } from './configured-demo.ts';
import { logDestination } from './log-destination.ts';

let config: ReturnType<typeof loadProviderConfig>;
let webhookCa: string | undefined;
try {
  config = loadProviderConfig(process.env);
  webhookCa = loadProviderCa(config);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Invalid configuration: ${error.message}`);
  process.exit(1);
}
const logger = pino(
  { level: config.logLevel },
  await logDestination({
    terminal: process.stdout.isTTY === true,
    production: config.production,
  }),
);
const running = await startProvider({
  port: config.port,
  host: config.host,
  allowedHosts: config.allowedHosts,
  apiToken: config.apiToken,
  party: config.party,
  timeScale: config.timeScale,
  logger,
  ...(config.adminToken === undefined ? {} : { adminToken: config.adminToken }),
  ...(config.webhookUrl === undefined ? {} : { webhookUrl: config.webhookUrl }),
  ...(config.webhookSecret === undefined ? {} : { webhookSecret: config.webhookSecret }),
  ...(webhookCa === undefined ? {} : { webhookCa }),
}).catch((error: unknown) => {
  if (!(error instanceof ProviderListenError)) throw error;
  console.error(error.message);
  process.exit(2);
});
// The address actually listened on, so "localhost" never hides an open 0.0.0.0.
console.log(
  `Provider simulator listening on ${running.address} (admin API at ${running.url}/admin)`,
);
console.log(
  `Console:             ${running.url}/${config.adminToken === undefined ? '' : ' (asks for PROVIDER_ADMIN_TOKEN)'}`,
);
console.log(`Sandbox participant: ${config.party}`);
console.log(`API token:           ${config.apiToken}`);
console.log(
  `Admin API:           ${config.adminToken === undefined ? 'no token (PROVIDER_ADMIN_TOKEN unset)' : 'Bearer PROVIDER_ADMIN_TOKEN required'}`,
);
if (config.adminToken === undefined && !running.loopback) {
  console.warn(
    'WARNING: the admin API has no token and listens beyond loopback: anyone who can reach it can read invoices, rotate secrets and send requests anywhere. Set PROVIDER_ADMIN_TOKEN.',
  );
}
if (running.secret !== undefined) {
  console.log(`Webhook endpoint:    ${config.webhookUrl}`);
  console.log(`Endpoint secret:     ${running.secret}  (shown once)`);
}
if (webhookCa !== undefined) console.log(`Webhooks also trust: ${config.caFile}`);
const demo = startConfiguredDemo(config, running.url);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  demo?.stop();
  void running.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
