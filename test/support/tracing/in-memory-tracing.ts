/**
 * OpenTelemetry registered globally for one test file, as the entry points' SDK would be (the
 * consumer finds it through the API's global, src/consumer/tracing/tracer.ts), with every
 * finished span kept in memory: a tracer provider with a simple span processor (it exports each
 * span as it ends, so a span a test waited for is there to read), the AsyncLocalStorage context
 * manager and the SDK's propagator (src/tracing/inject-only-propagator.ts: W3C trace context on
 * what goes out, nothing taken from what comes in). Registered before the file's first test, emptied
 * before each, removed after the last.
 */
import { type Attributes, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { injectOnlyPropagator } from '../../../src/tracing/inject-only-propagator.ts';

export interface InMemoryTracing {
  /** The provider registered (for an instrumentation the test enables itself). */
  readonly provider: TracerProvider;
  /** The spans finished so far in this test, in the order they ended. */
  spans(): ReadableSpan[];
  /** Those of them in the trace `traceId`. */
  inTrace(traceId: string): ReadableSpan[];
}

export function useInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(injectOnlyPropagator());
    trace.setGlobalTracerProvider(provider);
  });
  beforeEach(() => exporter.reset());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    propagation.disable();
    context.disable();
  });
  return {
    provider,
    spans: () => exporter.getFinishedSpans(),
    inTrace: (traceId) =>
      exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId),
  };
}

/** The span's parent span id, or undefined for a root (or no span). */
export function parentOf(span: ReadableSpan | undefined): string | undefined {
  return span?.parentSpanContext?.spanId;
}

/**
 * Every value a span carries beyond its ids, as text: its name, status message, and the
 * attributes of the span, its events and its links. For the scan that finds no secret, body
 * or document in what an exporter would send.
 */
export function carriedValues(spans: readonly ReadableSpan[]): string[] {
  const values = (attributes: Attributes | undefined) =>
    Object.values(attributes ?? {}).map((value) => String(value));
  return spans.flatMap((span) => [
    span.name,
    span.status.message ?? '',
    ...values(span.attributes),
    ...span.events.flatMap((event) => [event.name, ...values(event.attributes)]),
    ...span.links.flatMap((link) => values(link.attributes)),
  ]);
}

/** The W3C traceparent naming a finished span (what a row keeps when queued in it). */
export function traceParentOf(span: ReadableSpan): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
}
