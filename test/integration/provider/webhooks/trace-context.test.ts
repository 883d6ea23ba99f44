/**
 * The simulator's webhooks carry the trace they are sent in (docs/operating.md#tracing): a
 * span per delivery attempt, named in a W3C `traceparent` header on the request, so that in the
 * sandbox one trace runs from the sender's submit to the consumer. Tracing registered as the
 * entry points' SDK registers it, with an in-memory exporter (useInMemoryTracing).
 */
import { context, SpanKind, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  DELIVERY_SPAN_NAME,
  PROVIDER_TRACER_NAME,
  ROUND_SPAN_NAME,
} from '../../../../src/provider/webhooks/delivery-span.ts';
import { parentOf, useInMemoryTracing } from '../../../support/tracing/in-memory-tracing.ts';
import { dispatcherForEachTest, makeEnvelope, makeRouting, PARTY } from './fixtures.ts';

const tracing = useInMemoryTracing();

const setup = dispatcherForEachTest({ status: 204 });
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

function deliverySpans(): ReadableSpan[] {
  return tracing.spans().filter((span) => span.name === DELIVERY_SPAN_NAME);
}

/** The trace and span a received request's traceparent names. */
function sentTraceParent(index: number): { traceId: string; spanId: string } {
  const header = setup.endpoint.requests[index]?.headers.traceparent;
  const match = TRACEPARENT.exec(typeof header === 'string' ? header : '');
  if (match === null) throw new Error(`request ${index} has no valid traceparent: ${header}`);
  return { traceId: match[1] as string, spanId: match[2] as string };
}

describe('a webhook delivery attempt', () => {
  beforeEach(() => {
    setup.dispatcher.createEndpoint(PARTY, { name: 'erp', url: setup.endpoint.url });
  });

  it("sends a traceparent naming its own span, in the trace of the sender's submit", async () => {
    const envelope = makeEnvelope();
    // The simulated sender's submit: whatever span was active when the event was published.
    const submit = trace.getTracer('test').startSpan('submit');
    context.with(trace.setSpan(context.active(), submit), () =>
      setup.dispatcher.publish(envelope, makeRouting()),
    );
    await setup.dispatcher.idle();
    submit.end();

    const [span] = deliverySpans();
    expect(span).toBeDefined();
    if (span === undefined) return;
    expect(span.spanContext()).toMatchObject(sentTraceParent(0));
    const round = tracing.spans().find((s) => s.name === ROUND_SPAN_NAME);
    expect(parentOf(span)).toBe(round?.spanContext().spanId);
    expect(parentOf(round)).toBe(submit.spanContext().spanId);
    expect(span.spanContext().traceId).toBe(submit.spanContext().traceId);
    expect(span.instrumentationScope.name).toBe(PROVIDER_TRACER_NAME);
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.attributes).toMatchObject({
      'invoicing.event.id': envelope.eventId,
      'invoicing.message.id': envelope.messageId,
      'invoicing.action': 'created',
      'invoicing.transfer': 'inbound',
      'invoicing.webhook.attempt': 1,
      'http.response.status_code': 204,
      'invoicing.outcome': 'delivered',
    });
    // The delivery log shows the header as sent.
    const [attempt] = setup.dispatcher.delivery(envelope.eventId)?.attempts ?? [];
    expect(attempt?.headers.traceparent).toBe(setup.endpoint.requests[0]?.headers.traceparent);
  });

  it("gets a span of its own on each retry, in the round's trace", async () => {
    setup.endpoint.answer({ status: 503 });
    const envelope = makeEnvelope();
    setup.dispatcher.publish(envelope, makeRouting());
    await setup.dispatcher.idle();
    setup.endpoint.answer({ status: 204 });
    setup.clock.advance(60_000);
    await setup.dispatcher.idle();

    expect(setup.endpoint.requests).toHaveLength(2);
    const [failed, delivered] = deliverySpans();
    expect(failed?.spanContext()).toMatchObject(sentTraceParent(0));
    expect(delivered?.spanContext()).toMatchObject(sentTraceParent(1));
    expect(sentTraceParent(1).traceId).toBe(sentTraceParent(0).traceId);
    expect(failed?.attributes).toMatchObject({
      'invoicing.webhook.attempt': 1,
      'http.response.status_code': 503,
      'invoicing.outcome': 'failed',
    });
    expect(delivered?.attributes).toMatchObject({
      'invoicing.webhook.attempt': 2,
      'invoicing.outcome': 'delivered',
    });
  });

  it('is traced for a test event too', async () => {
    const [endpoint] = setup.dispatcher.listEndpoints(PARTY);
    await setup.dispatcher.sendTestEvent(PARTY, endpoint?.id ?? '', {});
    const [span] = deliverySpans();
    expect(span?.spanContext()).toMatchObject(sentTraceParent(0));
  });
});
