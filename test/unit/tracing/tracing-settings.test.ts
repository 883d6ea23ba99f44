import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/consumer/settings/reader.ts';
import {
  DEFAULT_SERVICE_NAME,
  readTracingSettings,
} from '../../../src/tracing/tracing-settings.ts';

describe('readTracingSettings', () => {
  it('is off unless an exporter or an endpoint is set', () => {
    expect(readTracingSettings({})).toEqual({ enabled: false });
    expect(
      readTracingSettings({ OTEL_SERVICE_NAME: 'consumer', OTEL_TRACES_SAMPLER: 'always_on' }),
    ).toEqual({
      enabled: false,
    });
    expect(readTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toEqual({ enabled: false });
  });

  it('turns on the OTLP exporter for an endpoint, naming the service by default', () => {
    for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
      expect(readTracingSettings({ [name]: 'http://collector:4318' })).toEqual({
        enabled: true,
        exporters: ['otlp'],
        serviceName: DEFAULT_SERVICE_NAME,
      });
    }
  });

  it('leaves the service name to the environment when it names one', () => {
    const on = { OTEL_TRACES_EXPORTER: 'console' };
    expect(readTracingSettings({ ...on, OTEL_SERVICE_NAME: 'billing' })).toEqual({
      enabled: true,
      exporters: ['console'],
    });
    expect(
      readTracingSettings({
        ...on,
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=b',
      }),
    ).toEqual({ enabled: true, exporters: ['console'] });
  });

  it('takes the exporters OTEL_TRACES_EXPORTER lists', () => {
    expect(readTracingSettings({ OTEL_TRACES_EXPORTER: 'otlp, console,otlp' })).toMatchObject({
      exporters: ['otlp', 'console'],
    });
  });

  it('stays off for none and for OTEL_SDK_DISABLED=true, endpoint or not', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(readTracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toEqual({
      enabled: false,
    });
    expect(readTracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toEqual({
      enabled: false,
    });
    expect(readTracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toMatchObject({
      enabled: true,
    });
  });

  it('names every bad variable at once', () => {
    const read = () =>
      readTracingSettings({
        OTEL_TRACES_EXPORTER: 'jaeger',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http',
        OTEL_SDK_DISABLED: 'yes',
      });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(
      [
        'Invalid configuration:',
        '  - OTEL_SDK_DISABLED must be true or false (got "yes")',
        '  - OTEL_TRACES_EXPORTER must list otlp, console, zipkin or be none (got "jaeger")',
        '  - OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json, grpc (got "http")',
      ].join('\n'),
    );
    expect(() => readTracingSettings({ OTEL_TRACES_EXPORTER: 'none,console' })).toThrow(
      'OTEL_TRACES_EXPORTER must be none alone',
    );
  });
});
