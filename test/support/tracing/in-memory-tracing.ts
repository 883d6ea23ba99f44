/**
 * An OpenTelemetry SDK for one test file, keeping its spans in memory: registered globally
 * before the file's first test (as the entry points register theirs: the consumer finds it
 * through the API's global, src/consumer/tracing/tracer.ts), emptied before each test, and
 * torn down after the last. SimpleSpanProcessor exports each span as it ends, so a span a test
 * waited for is there to read.
 */
import { type Attributes, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach } from 'vitest';

export interface InMemoryTracing {
  /** The spans ended so far in this test, in the order they ended. */
  spans(): ReadableSpan[];
}

export function useInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(provider);
  });
  beforeEach(() => {
    exporter.reset();
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });
  return { spans: () => exporter.getFinishedSpans() };
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
