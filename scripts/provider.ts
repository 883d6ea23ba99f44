/** `npm run provider`: the provider simulator alone, configured by PROVIDER_* variables. */
import 'dotenv/config';
import { pino } from 'pino';
import { ConfigError, loadProviderConfig } from '../src/provider/config.ts';
import { startProvider } from '../src/provider/provider.ts';

let config: ReturnType<typeof loadProviderConfig>;
try {
  config = loadProviderConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Invalid configuration: ${error.message}`);
  process.exit(1);
}
const logger = pino({ level: process.env.LOG_LEVEL ?? 'info' });
const running = await startProvider({
  port: config.port,
  host: '0.0.0.0',
  apiToken: config.apiToken,
  party: config.party,
  timeScale: config.timeScale,
  logger,
  ...(config.webhookUrl === undefined ? {} : { webhookUrl: config.webhookUrl }),
  ...(config.webhookSecret === undefined ? {} : { webhookSecret: config.webhookSecret }),
});
const base = running.url.replace('0.0.0.0', 'localhost');
console.log(`Provider simulator at ${base} (admin API at ${base}/admin)`);
console.log(`Sandbox participant: ${config.party}`);
console.log(`API token:           ${config.apiToken}`);
if (running.secret !== undefined) {
  console.log(`Webhook endpoint:    ${config.webhookUrl}`);
  console.log(`Endpoint secret:     ${running.secret}  (shown once)`);
}

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void running.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
