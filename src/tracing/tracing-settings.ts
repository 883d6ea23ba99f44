/**
 * Whether the standard OpenTelemetry variables ask for tracing, as a pure function of an
 * environment record (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
 * Off unless an operator asks: an exporter named in OTEL_TRACES_EXPORTER (other than `none`),
 * or an OTLP endpoint set. The SDK's own default exporter is `otlp` to localhost:4318, which
 * would make every consumer without a collector retry exports into the void: here nothing set
 * means nothing loaded.
 *
 * Only the values that decide what is loaded are checked; a value the SDK would ignore with a
 * warning on its diagnostic channel (an exporter it does not know, a protocol this image has no
 * exporter for) is refused at start-up instead, naming the variable, like the consumer's own
 * settings (with their ConfigError and reader).
 */
import { ConfigError, createReader, type Env } from '../consumer/settings/reader.ts';

const TRACE_EXPORTERS = ['otlp', 'console', 'zipkin'] as const;
type TraceExporterName = (typeof TRACE_EXPORTERS)[number];
const PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;

/** The service name when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES gives one. */
export const DEFAULT_SERVICE_NAME = 'invoicing-webhook-consumer';

export type TracingSettings =
  | { enabled: false }
  | {
      enabled: true;
      /** What OTEL_TRACES_EXPORTER names, `otlp` when only an endpoint is set. */
      exporters: readonly TraceExporterName[];
      /** Set only when the environment names no service: the SDK reads the variables itself. */
      serviceName?: string;
    };

/** The tracing settings `env` asks for; throws ConfigError naming each bad variable. */
export function readTracingSettings(env: Env): TracingSettings {
  const problems: string[] = [];
  const { raw } = createReader(env, problems);

  const disabled = raw('OTEL_SDK_DISABLED')?.toLowerCase();
  if (disabled !== undefined && disabled !== 'true' && disabled !== 'false') {
    problems.push(`OTEL_SDK_DISABLED must be true or false (got "${disabled}")`);
  }
  const named = raw('OTEL_TRACES_EXPORTER')
    ?.split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  for (const name of named ?? []) {
    if (name !== 'none' && !TRACE_EXPORTERS.includes(name as TraceExporterName)) {
      problems.push(
        `OTEL_TRACES_EXPORTER must list ${TRACE_EXPORTERS.join(', ')} or be none (got "${name}")`,
      );
    }
  }
  if (named?.includes('none') && named.length > 1) {
    problems.push('OTEL_TRACES_EXPORTER must be none alone, or list exporters without none');
  }
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = raw(name);
    if (protocol !== undefined && !PROTOCOLS.includes(protocol as (typeof PROTOCOLS)[number])) {
      problems.push(`${name} must be one of ${PROTOCOLS.join(', ')} (got "${protocol}")`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const endpoint = raw('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? raw('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (disabled === 'true' || named?.includes('none')) return { enabled: false };
  if (named === undefined && endpoint === undefined) return { enabled: false };
  const exporters = (named ?? ['otlp']) as TraceExporterName[];
  const serviceNamed =
    raw('OTEL_SERVICE_NAME') !== undefined ||
    /(^|,)\s*service\.name\s*=/.test(raw('OTEL_RESOURCE_ATTRIBUTES') ?? '');
  return {
    enabled: true,
    exporters: [...new Set(exporters)],
    ...(serviceNamed ? {} : { serviceName: DEFAULT_SERVICE_NAME }),
  };
}
