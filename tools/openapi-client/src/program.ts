/**
 * `npm start -w tools/openapi-client -- [--base-url <url>] [--token <token>] [--receiver <id>]`:
 * submits an invoice to a running simulator (or any service with the same API) through the
 * client generated from docs/openapi.json, reads it back, and prints the result as JSON. Exits 1
 * on any unexpected answer, 2 on a bad argument. Without arguments it uses API_BASE_URL and
 * API_TOKEN, then the defaults of `npm run provider`. test/integration/provider/generated-client.test.ts
 * runs it against a real simulator.
 */
import { parseArgs } from 'node:util';
import createClient from 'openapi-fetch';
import type { paths } from '../generated/openapi.ts';
import { runApiCalls } from './api-calls.ts';
import { exampleInvoice } from './example-invoice.ts';
import { describeStatusChange, type MessageStatusChanged } from './webhook-payloads.ts';

/** Every request, so that a service that never answers fails the run instead of hanging it. */
const REQUEST_TIMEOUT_MS = 10_000;

let options: { 'base-url'?: string; token?: string; receiver?: string };
try {
  options = parseArgs({
    options: {
      'base-url': { type: 'string' },
      token: { type: 'string' },
      receiver: { type: 'string' },
    },
  }).values;
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  console.error('usage: program.ts [--base-url <url>] [--token <token>] [--receiver <id>]');
  process.exit(2);
}
const baseUrl = options['base-url'] ?? process.env.API_BASE_URL ?? 'http://127.0.0.1:4000';
const token = options.token ?? process.env.API_TOKEN ?? 'sandbox-token';
// The demo supplier every simulator knows (docs/sandbox.md).
const receiver = options.receiver ?? '0192:111111111';

const client = createClient<paths>({
  baseUrl,
  headers: { authorization: `Bearer ${token}` },
  fetch: (request) => fetch(request, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
});

try {
  const result = await runApiCalls(client, exampleInvoice(receiver));
  // Not a received event (this program runs no endpoint): the body the simulator sent when the
  // message passed validation, typed from the document's webhooks.
  const event: MessageStatusChanged = {
    eventId: 'example',
    action: 'messageStatusChanged',
    transfer: 'outbound',
    occurredAt: new Date().toISOString(),
    test: true,
    party: result.descriptor.originParty.identifier,
    messageId: result.messageId,
    data: { formerValue: result.submitStatus, newValue: result.status },
  };
  console.log(JSON.stringify({ ok: true, ...result, webhook: describeStatusChange(event) }));
} catch (error) {
  // fetch's own error says only "fetch failed"; its cause says why (refused, timed out).
  const cause = error instanceof Error && error.cause !== undefined ? ` (${error.cause})` : '';
  console.log(JSON.stringify({ ok: false, error: `${error}${cause}` }));
  process.exitCode = 1;
}
