/** Builds envelopes and signed webhook requests for tests; each test breaks one thing. */
import { randomUUID } from 'node:crypto';
import { type Dispatcher, request } from 'undici';
import { signatureHeader, type WebhookEnvelope } from '../../src/protocol/index.ts';

export function buildEnvelope(overrides: Partial<WebhookEnvelope> = {}): WebhookEnvelope {
  const messageId = overrides.messageId ?? randomUUID();
  return {
    eventId: randomUUID(),
    action: 'messageStatusChanged',
    transfer: 'inbound',
    occurredAt: new Date().toISOString(),
    test: false,
    party: '0192:999999999',
    messageId,
    data: { formerValue: 'pendingdelivery', newValue: 'delivered' },
    ...overrides,
  };
}

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/** A request as the service sends it: the body serialized once, signed over those bytes. */
export function signedRequest(
  payload: unknown,
  options: { secrets: string[]; timestamp?: number; headers?: Record<string, string> },
): SignedRequest {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const envelope =
    typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : {};
  return {
    body,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Service-Webhooks/2',
      'svc-webhook-signature': signatureHeader({ secrets: options.secrets, timestamp, body }),
      ...(typeof envelope.eventId === 'string' ? { 'svc-webhook-event-id': envelope.eventId } : {}),
      ...(typeof envelope.action === 'string' ? { 'svc-webhook-action': envelope.action } : {}),
      ...(typeof envelope.transfer === 'string'
        ? { 'svc-webhook-transfer': envelope.transfer }
        : {}),
      ...options.headers,
    },
  };
}

/** POSTs `payload` signed with `secret` as the service would; resolves to the status code. */
export async function postSigned(
  url: string,
  payload: unknown,
  options: { secret: string; dispatcher?: Dispatcher; headers?: Record<string, string> },
): Promise<number> {
  const req = signedRequest(payload, {
    secrets: [options.secret],
    ...(options.headers === undefined ? {} : { headers: options.headers }),
  });
  const res = await request(url, {
    method: 'POST',
    headers: req.headers,
    body: req.body,
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
  });
  await res.body.text();
  return res.statusCode;
}

/**
 * A signature header anyone can write without the secret: well-formed and fresh, with a v0
 * that matches nothing. It passes every check that can run before the body is read.
 */
export function forgedSignature(nowMs = Date.now()): string {
  return `t=${Math.floor(nowMs / 1000)},v0=${'0'.repeat(64)}`;
}
