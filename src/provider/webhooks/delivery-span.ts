/**
 * A span per webhook delivery attempt, and its `traceparent` on the request
 * (https://www.w3.org/TR/trace-context/), so that in the sandbox one trace runs from the
 * simulated sender's submit, through each attempt, to the consumer, which keeps the sender's
 * trace as a link on its own (docs/operating.md#tracing). The OpenTelemetry API alone: a no-op,
 * and no header, until an entry point starts an SDK (`npm run dev` with OTEL_* set).
 *
 * The header goes through the API's propagator, as the instrumentations' do, and onto the
 * request's own headers, so the delivery log shows what was sent. The SDK's undici
 * instrumentation leaves such a request alone (src/tracing/sdk.ts): this span is its client
 * span.
 */
import {
  type Context,
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { EVENT_ATTR, eventAttributes, type WebhookEnvelope } from '../../protocol/index.ts';
import type { AttemptOutcome, WebhookRequest } from './send-webhook.ts';

/** The simulator's tracer: its spans read as the sender's, apart from the consumer's. */
export const PROVIDER_TRACER_NAME = 'invoicing-provider-simulator';
/** Low cardinality, as the semantic conventions ask: the event is in the attributes. */
export const DELIVERY_SPAN_NAME = 'send webhook';
/** The start of a round of attempts (a publish or a redelivery), parent of its attempts. */
export const ROUND_SPAN_NAME = 'publish webhook';

/**
 * The context a round of attempts runs in: a span that marks the publish (or redelivery), child
 * of whatever was active (the simulated sender's submit, the admin request), ended at once.
 * The attempts are its children, so that a round's retries, hours apart on the simulated clock,
 * stay one trace even when nothing was active at the publish.
 */
export function startRoundContext(envelope: WebhookEnvelope): Context {
  const span = trace.getTracer(PROVIDER_TRACER_NAME).startSpan(ROUND_SPAN_NAME, {
    kind: SpanKind.PRODUCER,
    attributes: eventAttributes(envelope),
  });
  span.end();
  return trace.setSpan(context.active(), span);
}

/**
 * Sends `request` inside a delivery span, child of `parent` (the round's context, or the active
 * one for a test event). The event's identifiers carry the names the consumer gives them
 * (protocol/trace-attributes.ts), so one query finds both sides of an event; the attempt is the
 * simulator's own (`invoicing.webhook.attempt`). Identifiers and outcomes only, never the body
 * or the endpoint's credential.
 */
export function sendInDeliverySpan(
  params: {
    request: WebhookRequest;
    envelope: WebhookEnvelope;
    /** 1 for the first attempt of a round. */
    attempt: number;
    /** @default the active context */
    parent?: Context | undefined;
  },
  send: (request: WebhookRequest) => Promise<AttemptOutcome>,
): Promise<AttemptOutcome> {
  const { request, envelope } = params;
  const tracer = trace.getTracer(PROVIDER_TRACER_NAME);
  const attributes = {
    ...eventAttributes(envelope),
    'invoicing.webhook.attempt': params.attempt,
    'http.request.method': 'POST',
  };
  const parent = params.parent ?? context.active();
  return tracer.startActiveSpan(
    DELIVERY_SPAN_NAME,
    { kind: SpanKind.CLIENT, attributes },
    parent,
    async (span) => {
      propagation.inject(context.active(), request.headers);
      try {
        const outcome = await send(request);
        if (outcome.statusCode !== undefined) {
          span.setAttribute('http.response.status_code', outcome.statusCode);
        }
        span.setAttribute(EVENT_ATTR.outcome, outcome.success ? 'delivered' : 'failed');
        if (!outcome.success) {
          // A short reason (a status or "timeout", never the consumer's answer's body).
          const reason =
            outcome.statusCode === undefined ? 'no answer' : String(outcome.statusCode);
          span.setAttribute('error.type', reason);
          span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
        }
        return outcome;
      } finally {
        span.end();
      }
    },
  );
}
