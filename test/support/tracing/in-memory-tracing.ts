/**
 * OpenTelemetry registered globally for one test file, as the entry points' SDK would be, with
 * every finished span kept in memory: a tracer provider with a simple (synchronous) span
 * processor, the AsyncLocalStorage context manager and the W3C trace-context propagator.
 * Registered before the file's tests and removed after them; `reset()` between tests.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll } from 'vitest';

export interface InMemoryTracing {
  /** The provider registered (for an instrumentation the test enables itself). */
  readonly provider: TracerProvider;
  /** Every span finished so far. */
  spans(): ReadableSpan[];
  /** Forgets the spans finished so far. */
  reset(): void;
}

export function useInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    propagation.disable();
    context.disable();
  });
  return {
    provider,
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
  };
}

/** The span's parent span id, or undefined for a root. */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
