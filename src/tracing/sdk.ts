/**
 * The OpenTelemetry Node SDK as the entry points run it, imported only when tracing is on
 * (start-tracing.ts). Traces only: the consumer's metrics are Prometheus' (/metrics) and its
 * logs are pino's JSON lines, which carry the trace and span ids; so no metric reader and no log
 * exporter, which the SDK would otherwise start from the same variables and push to the same
 * endpoint. The exporter, its protocol and endpoint, the sampler (OTEL_TRACES_SAMPLER, parent
 * based "always on" by default), the batch settings and the resource (OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES) are the SDK's, read from the standard variables.
 */
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
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
      new HttpInstrumentation(),
      new ExpressInstrumentation(),
      new UndiciInstrumentation({ ignoreRequestHook: carriesTraceParent }),
      new PgInstrumentation(),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
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
