/**
 * Tracing off, the default (no SDK registered, as `npm start` without OTEL_* variables): the
 * OpenTelemetry API is a no-op, an invoice goes through as before, its events keep no trace
 * context, and no log line carries trace ids.
 */
import { trace } from '@opentelemetry/api';
import { expect, it } from 'vitest';
import { eventually, SANDBOX_ADMIN_TOKEN, startSandboxForTest } from '../../support/sandbox.ts';

it('delivers an invoice with no tracer registered, keeping no trace context', async () => {
  // Nothing registered in this file: the API's own no-op provider answers.
  expect(trace.getTracer('any').startSpan('probe').isRecording()).toBe(false);
  const sandbox = await startSandboxForTest({ consumerEnv: { LOG_LEVEL: 'info' } });
  const messageId = await sandbox.sendInboundInvoice();

  await eventually(
    async () => (await sandbox.view(messageId)).body?.inbound?.deliveryStatus === 'delivered',
    'delivered, and the status applied',
  );
  const { items } = await sandbox.consumer.store.events.list({ limit: 100 });
  const events = items.filter((e) => e.messageId === messageId);
  expect(events.map((e) => e.action)).toContain('deliveryNotified');
  expect(events.map((e) => e.traceParent)).toEqual(events.map(() => null));
  const res = await fetch(`${sandbox.consumer.url}/admin/events?limit=100`, {
    headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
  });
  const listed = ((await res.json()) as { items: { messageId: string; traceId: unknown }[] }).items;
  const ofMessage = listed.filter((e) => e.messageId === messageId);
  expect(ofMessage.length).toBe(events.length);
  expect(ofMessage.map((e) => e.traceId)).toEqual(ofMessage.map(() => null));

  const imported = sandbox.consumer.logs.find(
    (line) => line.msg === 'documents imported' && line.messageId === messageId,
  );
  expect(imported).toBeDefined();
  expect(sandbox.consumer.logs.filter((line) => 'trace_id' in line)).toEqual([]);
});
