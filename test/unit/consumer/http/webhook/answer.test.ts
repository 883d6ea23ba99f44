import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnswer } from '../../../../../src/consumer/http/webhook/answer.ts';
import { tooLarge } from '../../../../../src/consumer/http/webhook/rejection.ts';
import { createMetrics } from '../../../../../src/consumer/metrics/index.ts';
import { buildEnvelope } from '../../../../support/webhooks.ts';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A real server answering every request as `respond` says, with its log lines kept. */
async function serve(respond: (answer: ReturnType<typeof createAnswer>) => express.Handler) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const metrics = createMetrics({ defaultMetrics: false });
  const app = express();
  app.post('/webhooks', respond(createAnswer({ logger, metrics })));
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  return { url, lines, metrics };
}

describe('the answer, its log line and its metric', () => {
  it('answers 204 with one line naming the stored event', async () => {
    const { url, lines, metrics } = await serve(
      (answer) => (req, res) =>
        answer.accepted(req, res, performance.now(), {
          outcome: 'stored',
          status: 204,
          envelope: buildEnvelope({
            eventId: 'evt-1',
            action: 'created',
            messageId: 'm-1',
            data: {},
          }),
        }),
    );
    const response = await fetch(url, { method: 'POST', body: '{}' });
    expect(response.status).toBe(204);
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'webhook',
        eventId: 'evt-1',
        messageId: 'm-1',
        verified: true,
        outcome: 'stored',
        status: 204,
      }),
    ]);
    expect(await metrics.registry.metrics()).toMatch(
      /webhook_requests_total\{outcome="stored"\} 1/,
    );
  });

  it('answers a refusal as problem JSON with its headers, logging unsigned ids cut short', async () => {
    const { url, lines } = await serve((answer) => (req, res) => {
      const rejection = tooLarge(10);
      answer.refused(req, res, performance.now(), rejection);
    });
    const response = await fetch(url, {
      method: 'POST',
      body: '{}',
      headers: { 'SVC-Webhook-Event-Id': 'x'.repeat(500) },
    });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toEqual({
      type: 'about:blank',
      status: 413,
      title: 'Body too large',
      detail: 'The body exceeds WEBHOOK_MAX_BODY_BYTES (10 bytes).',
    });
    const [line] = lines;
    expect(line).toMatchObject({ verified: false, outcome: 'too_large', status: 413 });
    expect(String(line?.eventId).length).toBeLessThanOrEqual(101);
  });
});
