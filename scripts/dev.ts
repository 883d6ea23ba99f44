/**
 * `npm run dev`: the consumer in sandbox mode on an embedded SQLite file, with a generated
 * signing secret unless WEBHOOK_SECRETS is set, and instructions to send it a signed request.
 */
import 'dotenv/config';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../src/consumer/config.ts';
import { startConsumer } from '../src/consumer/consumer.ts';
import { createLogger } from '../src/consumer/logger.ts';

const secret = process.env.WEBHOOK_SECRETS ?? `whsec_${randomBytes(24).toString('base64url')}`;
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig({
    API_BASE_URL: 'http://127.0.0.1:4000',
    API_TOKEN: 'sandbox-token',
    DATABASE_URL: 'sqlite:./data/dev.db',
    ADMIN_TOKEN: 'dev-admin',
    ...process.env,
    WEBHOOK_SECRETS: secret,
  });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
const logger = createLogger(config.logLevel);
const consumer = await startConsumer({ config, logger });
const url = `${consumer.url}${config.webhookPath}`;
const firstSecret = config.webhookSecrets[0] ?? '';

console.log(`
  Consumer (sandbox) listening on ${url}
  Signing secret:  ${firstSecret}
  Admin API:       curl -H 'Authorization: Bearer ${config.adminToken}' ${consumer.url}/admin/events

  Send a signed test event:
    body='{"eventId":"evt-1","action":"created","transfer":"inbound","occurredAt":"2026-01-01T00:00:00.000Z","test":true,"party":"0192:999999999","messageId":"m-1","data":{}}'
    t=$(date +%s)
    sig=$(printf '%s.%s' "$t" "$body" | openssl dgst -sha256 -hmac '${firstSecret}' | sed 's/.*= //')
    curl -i -X POST ${url} -H "SVC-Webhook-Signature: t=$t,v0=$sig" -H 'Content-Type: application/json' --data "$body"
  An unsigned request gets 401:
    curl -i -X POST ${url} --data "$body"
`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  const { forced } = await consumer.close();
  process.exit(forced ? 1 : 0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
