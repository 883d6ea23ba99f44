/**
 * The OpenTelemetry Node SDK as the entry points run it, imported only when tracing is on
 * (start-tracing.ts). Traces only: the consumer's metrics are Prometheus' (/metrics) and its
 * logs are pino's JSON lines, which carry the trace and span ids; so no metric reader and no log
 * exporter, which the SDK would otherwise start from the same variables and push to the same
 * endpoint. The exporter, its protocol and endpoint, the sampler (OTEL_TRACES_SAMPLER, parent
 * based "always on" by default), the batch settings and the resource (OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES) are the SDK's, read from the standard variables.
 */
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { injectOnlyPropagator } from './inject-only-propagator.ts';
import type { RunningTracing } from './start-tracing.ts';
import type { TracingSettings } from './tracing-settings.ts';

export function startSdk(settings: TracingSettings & { enabled: true }): RunningTracing {
  const sdk = new NodeSDK({
    ...(settings.serviceName === undefined ? {} : { serviceName: settings.serviceName }),
    metricReaders: [],
    logRecordProcessors: [],
    textMapPropagator: injectOnlyPropagator(),
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: isProbe }),
      // A span per router only: one per middleware (body parsers, the admin token check) and
      // per handler would add half a dozen spans to every webhook, at a cost per request, and
      // tell nothing the consumer's own spans do not. The route still names the server span.
      new ExpressInstrumentation({
        ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.REQUEST_HANDLER],
      }),
      new UndiciInstrumentation({ ignoreRequestHook: carriesTraceParent }),
      // Only queries made inside a span (a claim, an import's store writes): the workers' idle
      // polls would otherwise each start a trace of their own, every few hundred milliseconds.
      // The query's text is recorded, never its parameters (enhancedDatabaseReporting stays
      // off): they hold webhook bodies and documents.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}

/**
 * Liveness and readiness probes and the metrics scrape: a trace every few seconds from each
 * probe, telling nothing about an invoice.
 */
function isProbe(request: { url?: string | undefined }): boolean {
  const path = request.url?.split('?')[0];
  return path === '/healthz' || path === '/readyz' || path === '/metrics';
}

/**
 * A request sent with a `traceparent` of its own comes from code that made a client span for it
 * and named that span in the header (the simulator's webhook delivery attempt): a second client
 * span from this instrumentation would add a second `traceparent` header, which a receiver must
 * then ignore as malformed.
 */
function carriesTraceParent(request: { headers: string | (string | string[])[] }): boolean {
  const { headers } = request;
  if (typeof headers === 'string') return /(^|\r\n)traceparent:/i.test(headers);
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i];
    if (typeof name === 'string' && name.toLowerCase() === 'traceparent') return true;
  }
  return false;
}
