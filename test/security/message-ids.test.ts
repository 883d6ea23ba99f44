/**
 * Message ids that are not one safe path segment (issue 17, low): `..` passes
 * encodeURIComponent unchanged, so the client would send `GET /messages/../documents/core` with
 * the token attached. Refused where an id enters (the envelope, on the real consumer process)
 * and where it leaves (the API client, against a real server that must see nothing).
 */
import { createServer } from 'node:http';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, createApiClient } from '../../src/consumer/api/index.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';
import { buildEnvelope, signedRequest } from '../support/webhooks.ts';
import {
  type ConsumerProcess,
  consumerUnderAttackEnv,
  startConsumerProcess,
} from './support/consumer-process.ts';

const UNSAFE = ['..', '.', '../documents', 'a/b', 'a\\b', 'a\u0000b', 'line\nbreak'];
const SECRET = 'whsec_security_message_ids_0123456789';
const ADMIN_TOKEN = 'security-message-ids-admin-token-0123';

let consumer: ConsumerProcess | undefined;
afterEach(async () => {
  await consumer?.stop();
  consumer = undefined;
});

describe('at the envelope', () => {
  it('a signed event with an unsafe messageId is answered 400 and not stored', async () => {
    consumer = await startConsumerProcess({
      ...consumerUnderAttackEnv(SECRET),
      ADMIN_TOKEN,
    });
    for (const messageId of UNSAFE) {
      const signed = signedRequest(buildEnvelope({ messageId }), { secrets: [SECRET] });
      const res = await request(`${consumer.url}/webhooks`, {
        method: 'POST',
        headers: signed.headers,
        body: signed.body,
      });
      const problem = JSON.parse(await res.body.text());
      expect(res.statusCode).toBe(400);
      expect(problem.detail).toMatch(
        /^messageId: must (be a single path segment|not contain control characters)/,
      );
    }
    const events = await request(`${consumer.url}/admin/events`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(await events.body.json()).toEqual({ items: [], next: null });
  });
});

describe('in the API client', () => {
  it('refuses unsafe ids with a non-retryable ApiError, sending nothing', async () => {
    const received: string[] = [];
    const server = createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const api = createApiClient({ baseUrl: await listenOnLoopback(server), token: 'api-token' });
    try {
      for (const messageId of UNSAFE) {
        const calls = [
          () => api.getMessage(messageId),
          () => api.getMessageStatus(messageId),
          () => api.getCoreDocument(messageId),
          () => api.getTransaction('SubmitInvoice', messageId),
          () => api.markAsDelivered(messageId),
          () => api.markAsFailed(messageId, 'reason'),
        ];
        for (const call of calls) {
          const error = await call().then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
          expect(error).toBeInstanceOf(ApiError);
          expect(error).toMatchObject({ retryable: false, status: undefined, path: '(not sent)' });
        }
      }
      expect(received).toEqual([]);
    } finally {
      await api.close();
      server.close();
    }
  });
});
