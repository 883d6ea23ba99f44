/**
 * Where a webhook's span goes in a trace (request-span.ts): its own SERVER root, or INTERNAL
 * under the http instrumentation's server span, unless that span continues the sender's trace;
 * the sender's traceparent is only ever a link.
 */
import type { IncomingMessage } from 'node:http';
import { context, type Span, SpanKind, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { startWebhookSpan } from '../../../../../src/consumer/http/webhook/request-span.ts';
import { parseTraceParent } from '../../../../../src/consumer/tracing/trace-parent.ts';
import { parentOf, useInMemoryTracing } from '../../../../support/tracing/in-memory-tracing.ts';

const tracing = useInMemoryTracing();

const SENDER = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const request = (headers: Record<string, string> = {}) =>
  ({ method: 'POST', headers }) as unknown as IncomingMessage;

/** Starts and ends a webhook span for `req`, with `active` (an http server span) active. */
function receive(req: IncomingMessage, active?: Span) {
  const base = active === undefined ? context.active() : trace.setSpan(context.active(), active);
  context.with(base, () => startWebhookSpan(req, '/webhooks').aborted());
  const [span] = tracing.spans().filter((s) => s.name === 'webhook receive');
  if (span === undefined) throw new Error('no webhook span');
  return span;
}

describe('the webhook span in a trace', () => {
  it('is a SERVER root of its own when no span is active, the sender only linked', () => {
    const span = receive(request({ traceparent: SENDER }));
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(parentOf(span)).toBeUndefined();
    expect(span.spanContext().traceId).not.toBe(parseTraceParent(SENDER)?.traceId);
    expect(span.links.map((l) => [l.context.spanId, l.attributes])).toEqual([
      ['b7ad6b7169203331', { 'invoicing.link.source': 'sender' }],
    ]);
  });

  it('ignores a malformed traceparent', () => {
    const span = receive(request({ traceparent: '00-not-a-trace-01' }));
    expect(span.links).toEqual([]);
  });

  it('is INTERNAL under an http server span of our own trace', () => {
    const http = trace.getTracer('http').startSpan('POST', { kind: SpanKind.SERVER });
    const span = receive(request({ traceparent: SENDER }), http);
    http.end();
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(parentOf(span)).toBe(http.spanContext().spanId);
    expect(span.links.map((l) => l.attributes)).toEqual([{ 'invoicing.link.source': 'sender' }]);
  });

  it("is a SERVER root, linked to both, when the http span continued the sender's trace", () => {
    const sender = parseTraceParent(SENDER);
    if (sender === undefined) throw new Error('bad test traceparent');
    const continued = trace
      .getTracer('http')
      .startSpan('POST', { kind: SpanKind.SERVER }, trace.setSpanContext(context.active(), sender));
    const span = receive(request({ traceparent: SENDER }), continued);
    continued.end();
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(parentOf(span)).toBeUndefined();
    expect(span.spanContext().traceId).not.toBe(sender.traceId);
    expect(span.links.map((l) => [l.context.spanId, l.attributes])).toEqual([
      [sender.spanId, { 'invoicing.link.source': 'sender' }],
      [continued.spanContext().spanId, { 'invoicing.link.source': 'http' }],
    ]);
  });
});
