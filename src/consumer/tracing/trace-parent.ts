/**
 * A span's context as a W3C `traceparent` string (https://www.w3.org/TR/trace-context/#traceparent-header),
 * to keep with a stored row and take up again later, possibly in another process or replica:
 * the event the webhook stored, the status notice in the sink outbox, the submission. Written
 * and read here rather than through the global propagator so that what is stored does not
 * depend on which propagators an operator configured.
 */
import {
  type Context,
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  type SpanContext,
  TraceFlags,
  trace,
} from '@opentelemetry/api';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The active span's traceparent, or null when no span is recording (tracing off). */
export function activeTraceParent(): string | null {
  const span = trace.getSpan(context.active());
  if (span === undefined || !span.isRecording()) return null;
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
}

/**
 * The span context a traceparent names, or undefined for anything else (a header is outside
 * input: a malformed one is ignored, never an error). Version 00 only, as the specification's
 * first version defines it.
 */
export function parseTraceParent(value: string | undefined | null): SpanContext | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  const spanContext: SpanContext = {
    traceId: match[1] as string,
    spanId: match[2] as string,
    traceFlags: Number.parseInt(match[3] as string, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}

/**
 * A context whose parent is the span a stored traceparent names, or the root without one: a
 * row's work belongs to the trace that queued it, never to whatever the loop that took it runs in.
 */
export function contextFromTraceParent(value: string | undefined | null): Context {
  return contextUnder(parseTraceParent(value));
}

/** contextFromTraceParent for a traceparent already parsed (parseTraceParent). */
export function contextUnder(spanContext: SpanContext | undefined): Context {
  return spanContext === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, spanContext);
}
