/**
 * The spans of one sink call (docs/operating.md#tracing): one `status notice deliver` span per
 * notice, whose parent is the context the notice was queued in (the handling of the event, or
 * the submission's settling, that stored its status: SinkOutboxRow.traceParent), so each
 * notice's delivery sits in its own invoice's trace.
 *
 * The sink's call is made in a context the sink's own requests join (erp-http.ts's undici call,
 * a forker's fetch) without code of theirs:
 *   - one notice (deliver(), or a deliverMany() batch of one): that notice's span, since the
 *     call serves that invoice alone;
 *   - several (a deliverMany() batch): the notices belong to different invoices, hence to
 *     different traces, and a span has one parent. Parenting the call under one of them would
 *     file the others' delivery in a stranger's trace, so the call gets a `status notice batch`
 *     span of its own, a new trace linked to every notice's span, and each notice's span links
 *     back to it: from an invoice's trace, its notice's span leads to the batch (and the
 *     sink's request) that carried it.
 */
import {
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { SinkOutboxRow } from '../store/sink-outbox.ts';
import { contextFromTraceParent } from '../tracing/trace-parent.ts';
import { ATTR, consumerTracer, recordError } from '../tracing/tracer.ts';
import type { NoticeOutcome } from './define-sink.ts';

export const NOTICE_SPAN = 'status notice deliver';
export const BATCH_SPAN = 'status notice batch';

export interface NoticeSpans {
  /** The context the sink's call runs in. */
  readonly call: Context;
  /** The `index`th notice's span as the active context: its log lines carry its trace. */
  contextOf(index: number): Context;
  /** Notes what became of the `index`th notice (its outcome attribute, its error). */
  settle(index: number, outcome: NoticeOutcome): void;
  /** Ends every span (the outcomes are recorded by then, or the store is away). */
  end(): void;
}

/** Starts the spans of one sink call carrying `rows` (see the header). */
export function startNoticeSpans(rows: readonly SinkOutboxRow[]): NoticeSpans {
  const tracer = consumerTracer();
  // A batch span starts a trace of its own, whatever context the loop's turn runs in.
  const batch =
    rows.length > 1
      ? tracer.startSpan(
          BATCH_SPAN,
          { kind: SpanKind.INTERNAL, attributes: { [ATTR.noticeCount]: rows.length } },
          ROOT_CONTEXT,
        )
      : undefined;
  const notices = rows.map((row) => {
    // Without a stored context (tracing was off when it was queued), a trace of its own.
    const parent = contextFromTraceParent(row.traceParent);
    return tracer.startSpan(
      NOTICE_SPAN,
      {
        kind: SpanKind.INTERNAL,
        attributes: noticeAttributes(row),
        ...(batch === undefined ? {} : { links: [{ context: batch.spanContext() }] }),
      },
      parent,
    );
  });
  batch?.addLinks(notices.map((span) => ({ context: span.spanContext() })));
  const callSpan = batch ?? (notices[0] as Span);
  let delivered = 0;

  return {
    call: trace.setSpan(ROOT_CONTEXT, callSpan),
    contextOf: (index) => {
      const span = notices[index];
      return span === undefined ? ROOT_CONTEXT : trace.setSpan(ROOT_CONTEXT, span);
    },
    settle(index, outcome) {
      const span = notices[index];
      if (span === undefined) return;
      if (outcome.status === 'fulfilled') {
        delivered += 1;
        span.setAttribute(ATTR.outcome, 'delivered');
      } else {
        span.setAttribute(ATTR.outcome, 'failed');
        recordError(span, outcome.reason);
      }
    },
    end() {
      if (batch !== undefined) {
        batch.setAttribute(
          ATTR.outcome,
          delivered === rows.length ? 'delivered' : delivered === 0 ? 'failed' : 'partial',
        );
        if (delivered < rows.length) batch.setStatus({ code: SpanStatusCode.ERROR });
        batch.end();
      }
      for (const span of notices) span.end();
    },
  };
}

/** Identifiers only: never the notice's properties or validation results (they quote the service). */
function noticeAttributes(row: SinkOutboxRow) {
  const { notice } = row;
  return {
    [ATTR.noticeId]: notice.id,
    [ATTR.noticeKind]: notice.kind,
    [ATTR.transfer]: notice.transfer,
    [ATTR.attempt]: row.attempts + 1,
    ...(notice.messageId === null ? {} : { [ATTR.messageId]: notice.messageId }),
    ...(notice.kind === 'submission' ? { [ATTR.invoiceNo]: notice.invoiceNo } : {}),
  };
}
