/**
 * The worker's spans for one claimed event (docs/operating.md#tracing), in the trace of the
 * webhook request that stored it: the inbox row keeps that request span's context
 * (`traceParent`, migration 012), so one invoice is one trace however much later, and in
 * whichever process or replica, its event is handled:
 *
 *   webhook receive                     (ingress, http/webhook/request-span.ts)
 *   ├─ inbox wait                       stored (or due again) -> claimed; linked to the request
 *   │  └─ inbox claim                   the claimDue call that took it
 *   └─ inbox process                    the event's turn: handler and written outcome
 *      ├─ GET message descriptor, GET core document, GET transaction   (api/call-span.ts)
 *      ├─ import                        the importer, called inside it (inbound-delivery.ts)
 *      └─ acknowledge                   mark-as-delivered or mark-as-failed (acknowledge.ts)
 *         └─ POST mark-as-delivered
 *
 * The wait and the claim are recorded once the claim has returned, with the times they had:
 * the claim takes a batch, and which trace each event belongs to is known only from its row.
 * An event stored without a context (tracing was off, or it predates migration 012) starts a
 * trace of its own at its inbox wait. Nothing here takes the context active where the worker
 * happens to run: each event's spans belong to its own trace alone.
 */
import {
  type Context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { ClaimedEvent } from '../store/events.ts';
import { contextFromTraceParent, parseTraceParent } from '../tracing/trace-parent.ts';
import { ATTR, consumerTracer } from '../tracing/tracer.ts';

/** When the claimDue call that took an event started and returned (ms since the epoch). */
export interface ClaimTiming {
  startedAt: number;
  endedAt: number;
  /** Events that call took. */
  batch: number;
}

const ATTEMPT = 'invoicing.event.attempt';

/**
 * Records the event's inbox wait and claim, and returns the context its turn runs in: under
 * the request span that stored it, or under the wait when there is none.
 */
export function recordInboxWait(event: ClaimedEvent, claim: ClaimTiming): Context {
  const stored = parseTraceParent(event.traceParent);
  const links: Link[] = stored === undefined ? [] : [{ context: stored }];
  const parent = contextFromTraceParent(event.traceParent);
  const tracer = consumerTracer();
  // A first attempt waited from its arrival; a later one from when it was due again (its
  // earlier turns are spans of their own).
  const since = event.attempts > 1 ? event.nextAttemptAt : event.receivedAt;
  const wait = tracer.startSpan(
    'inbox wait',
    {
      kind: SpanKind.INTERNAL,
      startTime: Math.min(since, claim.startedAt),
      links,
      attributes: { ...eventAttributes(event), [ATTEMPT]: event.attempts },
    },
    parent,
  );
  tracer
    .startSpan(
      'inbox claim',
      {
        kind: SpanKind.INTERNAL,
        startTime: claim.startedAt,
        attributes: { 'invoicing.claim.batch': claim.batch },
      },
      trace.setSpan(ROOT_CONTEXT, wait),
    )
    .end(claim.endedAt);
  wait.end(claim.endedAt);
  return stored === undefined ? trace.setSpan(ROOT_CONTEXT, wait) : parent;
}

/** The options of the event's `inbox process` span, under `parent` (recordInboxWait). */
export function processSpanOptions(event: ClaimedEvent, parent: Context) {
  return {
    kind: SpanKind.CONSUMER,
    parent,
    attributes: { ...eventAttributes(event), [ATTEMPT]: event.attempts },
  };
}

export const PROCESS_SPAN = 'inbox process';

/**
 * A turn that failed: the error's type only, as tracer.ts's recordError (without its
 * event: the turn's outcome says when). Its message may quote an API answer, or an importer's
 * text with whatever its ERP answered; it is in the log line of the turn, which carries the
 * span's ids.
 */
export function markTurnFailed(span: Span, error: unknown): void {
  const type = error instanceof Error ? error.name : 'error';
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

function eventAttributes(event: ClaimedEvent) {
  return {
    [ATTR.eventId]: event.eventId,
    [ATTR.messageId]: event.messageId,
    [ATTR.action]: event.action,
    [ATTR.transfer]: event.transfer,
  };
}
