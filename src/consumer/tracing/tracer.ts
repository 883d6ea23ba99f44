/**
 * The consumer's spans, through the OpenTelemetry API alone (docs/operating.md#tracing). The
 * API is a no-op until an SDK registers a tracer provider, which only the entry points do
 * (src/tracing/start-tracing.ts, when the standard OTEL_* variables ask for it): a consumer
 * without tracing creates no span and pays a function call per hop.
 *
 * The tracer is looked up from the API's global, not passed in as other dependencies are:
 * that global is OpenTelemetry's documented seam (instrumentations and a forker's own code
 * find the same provider there), and tests register an in-memory one the same way.
 */
import {
  type Attributes,
  type Context,
  context,
  type Link,
  type Span,
  type SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { EVENT_ATTR } from '../../protocol/index.ts';

const TRACER_NAME = 'invoicing-webhook-consumer';

/**
 * Attribute names: an event's, shared with the simulator's spans (protocol/trace-attributes.ts),
 * then the consumer's own, beside the conventions' `messaging.*` and `http.*` ones where they
 * fit. Values are identifiers and outcomes only: never a secret, a body or a document.
 */
export const ATTR = {
  ...EVENT_ATTR,
  // The outboxes' (status sink, submissions) and reconciliation's own identifiers and counts.
  /** A status notice's id (StatusNotice.id: the sink's idempotency key). */
  noticeId: 'invoicing.notice.id',
  /** delivery, taxReporting, lifecycle or submission. */
  noticeKind: 'invoicing.notice.kind',
  /** Notices one deliverMany() call carried. */
  noticeCount: 'invoicing.notice.count',
  /** The ERP's invoice number of a submission (its key in the outbox). */
  invoiceNo: 'invoicing.invoice.number',
  /** Which attempt this is, from 1 (a notice's delivery, a submission's submit). */
  attempt: 'invoicing.attempt',
  /** How long until a scheduled retry or lookup of a submission. */
  delayMs: 'invoicing.delay_ms',
} as const;

export function consumerTracer() {
  return trace.getTracer(TRACER_NAME);
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** When the span began, if before now (the inbox wait starts when the event was stored). */
  startTime?: number;
  /** The parent; @default the active context */
  parent?: Context;
  /** How a thrown error is recorded on the span; @default recordError */
  onError?: (span: Span, error: unknown) => void;
}

/**
 * Runs `work` inside a new active span, so whatever it calls (an importer's fetch, a sink's
 * request, a log line) joins it; ends the span when `work` settles, recording a thrown error
 * (by its type alone, unless `onError` says otherwise).
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T> | T,
): Promise<T> {
  const { parent = context.active(), onError = recordError, ...spanOptions } = options;
  return consumerTracer().startActiveSpan(name, spanOptions, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      onError(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** What a failed span says of its error: its type (an Error's name). */
export function errorType(error: unknown): string {
  return error instanceof Error ? error.name : 'error';
}

/**
 * A failed span, by `type` alone (errorType, a status code): an error's message may quote an
 * API answer, an importer's text with whatever its ERP answered, or a request, none of which
 * belongs in a trace; the log line written with the span's ids has it.
 */
export function markFailed(span: Span, type: string): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/**
 * markFailed by the error's type, with an `exception` event (the conventions'
 * `exception.type`) marking when it happened.
 */
export function recordError(span: Span, error: unknown): void {
  const type = errorType(error);
  markFailed(span, type);
  span.addEvent('exception', { 'exception.type': type });
}
