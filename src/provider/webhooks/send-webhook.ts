/**
 * One webhook HTTP attempt (docs/signature.md#webhook-request, docs/retries.md#consumer-answer). The body is serialized once by the
 * caller; the signature is computed over exactly those bytes and exactly those bytes are sent,
 * so a consumer that verifies the raw body always succeeds.
 */
import { performance } from 'node:perf_hooks';
import { type Dispatcher, request } from 'undici';
import {
  ACTION_HEADER,
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  signatureHeader,
  TRANSFER_HEADER,
  WEBHOOK_CONTENT_TYPE,
  WEBHOOK_RESPONSE_TIMEOUT_MS,
  WEBHOOK_SUCCESS_STATUSES,
  WEBHOOK_USER_AGENT,
  type WebhookEnvelope,
} from '../../protocol/index.ts';
import { credentialHeaders, type StoredEndpoint, validSecrets } from './endpoints.ts';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface AttemptOutcome {
  statusCode?: number;
  error?: string;
  responseTimeMs: number;
  bodyStart: string;
  success: boolean;
}

/** Characters of the response body kept in the delivery log. */
export const BODY_START_LENGTH = 200;
/** Reading stops here: the log keeps 200 characters, and a consumer may answer megabytes. */
const MAX_BODY_BYTES_READ = 4096;

/** Headers and body for one attempt, signed at `nowMs` with every secret valid then. */
export function buildWebhookRequest(params: {
  envelope: WebhookEnvelope;
  body: string;
  endpoint: StoredEndpoint;
  nowMs: number;
}): WebhookRequest {
  const { envelope, body, endpoint } = params;
  const timestamp = Math.floor(params.nowMs / 1000);
  return {
    url: endpoint.url,
    body,
    headers: {
      ...credentialHeaders(endpoint.credential),
      'content-type': WEBHOOK_CONTENT_TYPE,
      'user-agent': WEBHOOK_USER_AGENT,
      [SIGNATURE_HEADER]: signatureHeader({
        secrets: validSecrets(endpoint, params.nowMs),
        timestamp,
        body,
      }),
      [EVENT_ID_HEADER]: envelope.eventId,
      [ACTION_HEADER]: envelope.action,
      [TRANSFER_HEADER]: envelope.transfer,
    },
  };
}

/**
 * Sends one request. Never throws: a timeout or connection error is an outcome like a status
 * code. Redirects are not followed (undici's request does not follow them), so a 3xx is a
 * failure, as is any 2xx other than 200/201/202/204. The 5 s limit is wall-clock time, whatever
 * clock the dispatcher schedules retries with, because it is the consumer's real latency.
 */
export async function sendWebhook(
  webhook: WebhookRequest,
  options: { dispatcher: Dispatcher; timeoutMs?: number },
): Promise<AttemptOutcome> {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_RESPONSE_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await request(webhook.url, {
      method: 'POST',
      headers: webhook.headers,
      body: Buffer.from(webhook.body, 'utf8'),
      dispatcher: options.dispatcher,
      signal: controller.signal,
    });
    const bodyStart = await readBodyStart(response.body);
    const statusCode = response.statusCode;
    return {
      statusCode,
      responseTimeMs: elapsed(),
      bodyStart,
      success: WEBHOOK_SUCCESS_STATUSES.has(statusCode),
    };
  } catch (error) {
    const text = controller.signal.aborted
      ? `timeout: no complete answer within ${timeoutMs} ms`
      : describeError(error);
    return { error: text, responseTimeMs: elapsed(), bodyStart: '', success: false };
  } finally {
    clearTimeout(timer);
  }
}

async function readBodyStart(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early destroys the stream, which is what we want for a huge body.
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_BODY_BYTES_READ) break;
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, BODY_START_LENGTH);
}

/** A short text for the log, e.g. "ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:4321". */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const source = cause ?? error;
  const code = (source as { code?: unknown }).code;
  const message = source.message || error.message || error.name;
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}
