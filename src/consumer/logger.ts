import { type DestinationStream, type Logger, pino } from 'pino';
import type { LogLevel } from './config.ts';
import { traceLogFields } from './tracing/log-fields.ts';

/**
 * JSON logs on stdout. Request headers are never logged whole; these paths are redacted in
 * case a caller logs an object that carries them. A line written inside a recording span
 * carries its `trace_id` and `span_id` (tracing/log-fields.ts).
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      mixin: traceLogFields,
      redact: {
        paths: [
          'headers.authorization',
          'headers["svc-webhook-signature"]',
          'req.headers.authorization',
          'req.headers["svc-webhook-signature"]',
          'config.webhookSecrets',
          'config.apiToken',
          'config.adminToken',
          'config.adminSubmitToken',
          'config.adminReadToken',
          'config.webhookCredential',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
