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
  trace,
} from '@opentelemetry/api';
import { eventAttributes } from '../../protocol/index.ts';
import type { ClaimedEvent } from '../store/events.ts';
import { contextUnder, parseTraceParent } from '../tracing/trace-parent.ts';
import { consumerTracer, inSpan } from '../tracing/tracer.ts';

/** When the claimDue call that took an event started and returned (ms since the epoch). */
export interface ClaimTiming {
  startedAt: number;
  endedAt: number;
  /** Events that call took. */
  batch: number;
}

const ATTEMPT = 'invoicing.event.attempt';

/**
 * Runs the event's turn (`work`) in its `inbox process` span, after recording its inbox wait
 * and claim; the process span is a child of the request span that stored the event, or of the
 * wait when there is none.
 */
export function inProcessSpan<T>(
  event: ClaimedEvent,
  claim: ClaimTiming,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const attributes = { ...eventAttributes(event), [ATTEMPT]: event.attempts };
  const parent = recordInboxWait(event, claim, attributes);
  return inSpan('inbox process', { kind: SpanKind.CONSUMER, parent, attributes }, work);
}

/** Records the event's inbox wait and claim; returns the context its turn runs in. */
function recordInboxWait(
  event: ClaimedEvent,
  claim: ClaimTiming,
  attributes: Record<string, string | number>,
): Context {
  const stored = parseTraceParent(event.traceParent);
  const links: Link[] = stored === undefined ? [] : [{ context: stored }];
  const parent = contextUnder(stored);
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
      attributes,
    },
    parent,
  );
  const underWait = trace.setSpan(ROOT_CONTEXT, wait);
  tracer
    .startSpan(
      'inbox claim',
      {
        kind: SpanKind.INTERNAL,
        startTime: claim.startedAt,
        attributes: { 'invoicing.claim.batch': claim.batch },
      },
      underWait,
    )
    .end(claim.endedAt);
  wait.end(claim.endedAt);
  return stored === undefined ? underWait : parent;
}
