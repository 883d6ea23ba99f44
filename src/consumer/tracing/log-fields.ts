/**
 * The trace of a log line: `trace_id` and `span_id` of the span active where the line is
 * written, so a log search and a trace view meet (docs/operating.md#tracing). Given to pino
 * as its documented `mixin` (logger.ts), which every logger and child logger calls per line.
 * The names are those of OpenTelemetry's log data model in snake case, as its own pino
 * instrumentation writes them.
 */
import { context, trace } from '@opentelemetry/api';

/** The active recording span's ids, or nothing (tracing off, or outside any span). */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  // A span that does not record is not exported either: its ids would lead nowhere.
  if (span === undefined || !span.isRecording()) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
