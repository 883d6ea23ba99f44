/**
 * The W3C trace context (and baggage) on outgoing requests only.
 *
 * The http instrumentation makes an incoming request's span the child of the context it
 * extracts from the request's headers. For the consumer that would hand its traces to whoever
 * sends it a request: the invoicing service's webhook (or anyone able to reach the port) would
 * own the trace of our receive, store, claim and import, with its sampling decision and its
 * trace id, and an unauthenticated request could choose which trace our spans join. A sender's
 * `traceparent` is kept instead as a link on the webhook's span (the consumer reads it there),
 * never as a parent. So extraction is a no-op, for every incoming request, and injection stays:
 * the consumer's API calls, an importer's ERP calls and the sink's notices carry our trace.
 */
import type { Context, TextMapPropagator, TextMapSetter } from '@opentelemetry/api';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';

export function injectOnlyPropagator(): TextMapPropagator {
  const outgoing = new CompositePropagator({
    propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
  });
  return {
    inject(context: Context, carrier: unknown, setter: TextMapSetter) {
      outgoing.inject(context, carrier, setter);
    },
    extract(context: Context) {
      return context;
    },
    fields: () => outgoing.fields(),
  };
}
