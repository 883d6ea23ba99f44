#!/usr/bin/env node
/**
 * `npm run submit-invoice -- <file.json> [--more]`: submits an invoice's metadata JSON
 * (docs/messaging-api.md#submit-invoice-body) through the messaging API, as your ERP would, and prints the message
 * id. A successful submit does not mean validation passed: the outbound deliveryNotified
 * event says that. Try it with scripts/examples/invoice.json against `npm run dev`: with
 * neither API_BASE_URL nor API_TOKEN set it talks to the local sandbox (PROVIDER_PORT,
 * PROVIDER_API_TOKEN, or their defaults) and says so.
 */
import 'dotenv/config';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ApiError, createApiClient } from '../src/consumer/api/index.ts';
import { apiClientOptions, loadSubmitConfig, readConfig } from '../src/consumer/config.ts';
import { loadProviderConfig, ConfigError as ProviderConfigError } from '../src/provider/config.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { more: { type: 'boolean', default: false } },
});
const [file] = positionals;
if (file === undefined || positionals.length > 1) {
  console.error('usage: npm run submit-invoice -- <invoice.json> [--more]');
  process.exit(2);
}
// Only the API settings matter here; the webhook secret is not needed to submit. With neither
// API_BASE_URL nor API_TOKEN set, the sandbox of `npm run dev` / `npm run provider` is meant.
let read: { config: ReturnType<typeof loadSubmitConfig> } | { error: string };
try {
  read = readConfig(process.env, (env) => loadSubmitConfig(env, () => loadProviderConfig(env)));
} catch (error) {
  // A bad PROVIDER_* setting, read only for the sandbox.
  if (!(error instanceof ProviderConfigError)) throw error;
  read = { error: error.message };
}
if ('error' in read) {
  console.error(read.error);
  process.exit(2);
}
const { config } = read;
if (config.sandbox) {
  console.error(
    `API_BASE_URL and API_TOKEN are not set: using the local sandbox at ${config.apiBaseUrl}`,
  );
}
let invoice: unknown;
try {
  invoice = JSON.parse(await readFile(file, 'utf8'));
} catch (error) {
  console.error(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
const api = createApiClient(apiClientOptions(config));
try {
  const { messageId, status } = await api.submitInvoice(invoice, { more: values.more });
  console.log(`submitted: messageId=${messageId} status=${status}`);
} catch (error) {
  if (!(error instanceof ApiError)) throw error;
  console.error(
    `submit failed: ${error.message}${error.problem?.detail ? ` (${error.problem.detail})` : ''}`,
  );
  if (error.status === undefined && config.sandbox) {
    console.error('Is the sandbox running? Start it with `npm run dev` (or `npm run provider`).');
  }
  process.exitCode = 1;
} finally {
  await api.close();
}
