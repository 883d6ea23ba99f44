/**
 * The span of one logical call to the messaging API (docs/operating.md#tracing), named by its
 * method and what it asks for (`GET message descriptor`, `POST mark-as-delivered`): every
 * attempt and every wait between them is inside it, each retry an event saying which attempt
 * failed and why. INTERNAL, not CLIENT: the HTTP conventions give each attempt a CLIENT span
 * of its own, which the maintained undici instrumentation adds under this one when the SDK
 * registers it (a CLIENT inside a CLIENT would count each call twice in a service map).
 *
 * A failed call sets the span's error status with the status code and error type only: an
 * ApiError's message quotes the service's answer, and a body has no place in a trace.
 */
import { type Span, SpanKind } from '@opentelemetry/api';
import { inSpan, markFailed, recordError } from '../tracing/tracer.ts';
import { ApiError } from './api-error.ts';
import type { ApiRequest } from './request.ts';

export interface ApiCallSpan {
  /** Attempt number `attempt` failed (`reason`), and another follows after `delayMs`. */
  retrying(retry: { attempt: number; reason: string; status?: number; delayMs: number }): void;
  /** The call succeeded with `status` at attempt number `attempts`. */
  answered(status: number, attempts: number): void;
}

const ATTEMPTS = 'invoicing.api.attempts';

export function inApiCallSpan<T>(
  request: Pick<ApiRequest, 'method' | 'operation'>,
  work: (call: ApiCallSpan) => Promise<T>,
): Promise<T> {
  const options = {
    kind: SpanKind.INTERNAL,
    attributes: { 'http.request.method': request.method },
    onError: (span: Span, error: unknown) =>
      error instanceof ApiError ? failed(span, error) : recordError(span, error),
  };
  return inSpan(`${request.method} ${request.operation}`, options, (span) => work(callSpan(span)));
}

function callSpan(span: Span): ApiCallSpan {
  return {
    retrying({ attempt, reason, status, delayMs }) {
      span.addEvent('retry', {
        'invoicing.api.attempt': attempt,
        'invoicing.api.retry.reason': reason,
        'invoicing.api.retry.delay_ms': delayMs,
        ...(status === undefined ? {} : { 'http.response.status_code': status }),
      });
    },
    answered(status, attempts) {
      span.setAttributes({ 'http.response.status_code': status, [ATTEMPTS]: attempts });
    },
  };
}

/** The error's status code and type, never its message (it quotes the service's answer). */
function failed(span: Span, error: ApiError): void {
  if (error.status !== undefined) span.setAttribute('http.response.status_code', error.status);
  markFailed(span, error.status === undefined ? error.name : String(error.status));
}
