/**
 * The span of one webhook request (docs/operating.md#tracing), `webhook receive`: its events
 * say how far the request got (`verified`, then `stored` or `duplicate`, then `answered`),
 * its attributes which event it carried, set only once the signature is verified (before
 * that, everything in the request is whatever its sender wanted in our traces). The event is
 * stored with this span active, so the inbox row keeps its context (store-event.ts) and the
 * worker's spans for the event join this trace.
 *
 * Its place in a trace, decided here once:
 * - no span active (the Node SDK's http instrumentation off): a SERVER span, the root of a
 *   new trace;
 * - the http instrumentation's SERVER span active: an INTERNAL span under it, so the request
 *   is one span of HTTP detail and one of ours, not two servers;
 * - unless that span continues the sender's trace (the instrumentation follows a
 *   `traceparent` header by default): then a SERVER root all the same, linked to that span.
 * A `traceparent` the sender put on the webhook is only ever a link: a sender's trace must
 * not own ours (its sampling decision, its retention), and the header is unsigned input.
 */
import type { IncomingMessage } from 'node:http';
import {
  type Attributes,
  context,
  type Link,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { eventAttributes, type WebhookEnvelope } from '../../../protocol/index.ts';
import type { InsertOutcome } from '../../store/events.ts';
import { headerValue } from '../../text/header-value.ts';
import { parseTraceParent } from '../../tracing/trace-parent.ts';
import { ATTR, consumerTracer, recordError } from '../../tracing/tracer.ts';
import type { Rejection } from './rejection.ts';

const WEBHOOK_SPAN = 'webhook receive';

/** Where the link to the sender's trace says it came from (an attribute of the link). */
const LINK_SOURCE = 'invoicing.link.source';

export interface WebhookSpan {
  /** Runs `work` with the span active: what it stores and logs carries the span's context. */
  run<T>(work: () => T): T;
  /** The signature (and credential) passed. */
  verified(): void;
  /** The envelope of a verified body: its identifiers become the span's attributes. */
  envelope(envelope: WebhookEnvelope): void;
  /** The insert's outcome: the event `stored` or `duplicate`. */
  stored(outcome: InsertOutcome): void;
  /** Answered 204; ends the span. */
  accepted(outcome: InsertOutcome): void;
  /** Answered with the rejection's status (its outcome and title, never its detail); ends. */
  refused(rejection: Rejection): void;
  /** The client left mid-body; ends the span. */
  aborted(): void;
  /** An error thrown past every step: recorded, and the span ended unless it was already. */
  failed(error: unknown): void;
}

export function startWebhookSpan(req: IncomingMessage, route: string): WebhookSpan {
  const sender = parseTraceParent(headerValue(req.headers, 'traceparent'));
  const links: Link[] =
    sender === undefined ? [] : [{ context: sender, attributes: { [LINK_SOURCE]: 'sender' } }];
  const active = trace.getSpan(context.active());
  const recording = active?.isRecording() === true;
  if (active !== undefined && recording) {
    // The webhook path is answered without express (app.ts), whose instrumentation would
    // have given the http server span its route: named here as it was, `POST /webhooks`. The
    // active span is the http instrumentation's: express's handler layers are not traced
    // (src/tracing/sdk.ts), and only its routers are, which end before the handler runs.
    active.updateName(`${req.method ?? ''} ${route}`);
    active.setAttribute('http.route', route);
  }
  const nested = recording && active?.spanContext().traceId !== sender?.traceId;
  if (active !== undefined && recording && !nested) {
    links.push({ context: active.spanContext(), attributes: { [LINK_SOURCE]: 'http' } });
  }
  const attributes: Attributes = { 'http.request.method': req.method ?? '', 'http.route': route };
  const span = consumerTracer().startSpan(
    WEBHOOK_SPAN,
    { kind: nested ? SpanKind.INTERNAL : SpanKind.SERVER, attributes, links },
    nested ? context.active() : ROOT_CONTEXT,
  );
  const within = trace.setSpan(context.active(), span);
  let ended = false;
  const end = () => {
    ended = true;
    span.end();
  };
  const answered = (status: number, outcome: string) => {
    span.setAttribute('http.response.status_code', status);
    span.setAttribute(ATTR.outcome, outcome);
    span.addEvent('answered', { 'http.response.status_code': status });
    end();
  };
  return {
    run: (work) => context.with(within, work),
    verified: () => span.addEvent('verified'),
    envelope: (envelope) => span.setAttributes(eventAttributes(envelope)),
    stored: (outcome) => span.addEvent(outcome === 'inserted' ? 'stored' : 'duplicate'),
    accepted: (outcome) => answered(204, outcome === 'inserted' ? 'stored' : 'duplicate'),
    refused(rejection) {
      const { status, title } = rejection.problem;
      // The title is one of the consumer's fixed strings; the detail may quote the request.
      span.setAttribute('invoicing.refusal.reason', title);
      // As the HTTP conventions have it for a server: a 4xx is the client's error, not ours.
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: rejection.outcome });
      answered(status, rejection.outcome);
    },
    aborted() {
      span.setAttribute(ATTR.outcome, 'aborted');
      end();
    },
    failed(error) {
      if (ended) return;
      recordError(span, error);
      end();
    },
  };
}
