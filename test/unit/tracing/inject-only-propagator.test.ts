import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { injectOnlyPropagator } from '../../../src/tracing/inject-only-propagator.ts';

const OUR_SPAN = {
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  traceFlags: TraceFlags.SAMPLED,
};

describe('injectOnlyPropagator', () => {
  it('puts our span on outgoing requests as a W3C traceparent', () => {
    const headers: Record<string, string> = {};
    const ours = trace.setSpanContext(ROOT_CONTEXT, OUR_SPAN);
    injectOnlyPropagator().inject(ours, headers, defaultTextMapSetter);
    expect(headers.traceparent).toBe(`00-${OUR_SPAN.traceId}-${OUR_SPAN.spanId}-01`);
  });

  it("never takes an incoming request's traceparent as the parent of our spans", () => {
    const incoming = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    const extracted = injectOnlyPropagator().extract(
      context.active(),
      incoming,
      defaultTextMapGetter,
    );
    expect(trace.getSpanContext(extracted)).toBeUndefined();
  });
});
