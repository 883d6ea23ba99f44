/**
 * A JSON answer checked against the shape the client expects (response-schemas.ts), so that a
 * wrong one is an ApiError where it arrives rather than `undefined` deep inside the worker.
 */
import type { z } from 'zod';
import { API_JSON_LIMITS, JsonShapeError, parseBoundedJson } from '../../protocol/index.ts';
import { printableText } from '../text/error-text.ts';
import { ApiError, ERROR_BODY_LIMIT } from './api-error.ts';
import type { ApiResponse } from './attempt-outcome.ts';
import { type ApiRequest, describePath } from './request.ts';
import { describeIssues } from './response-schemas.ts';
import type { Transport } from './transport.ts';

/** Sends `request` and parses its answer as `what` (`a message status`, for the error). */
export async function requestJson<T>(
  transport: Transport,
  request: ApiRequest,
  schema: z.ZodType<T>,
  what: string,
): Promise<T> {
  const response = await transport.send(request);
  return parseJsonAnswer(response, request, schema, what);
}

export function parseJsonAnswer<T>(
  response: ApiResponse,
  request: ApiRequest,
  schema: z.ZodType<T>,
  what: string,
): T {
  // Only the start is kept in an error; decoding all of a large body for it would be waste.
  const start = () => response.body.subarray(0, ERROR_BODY_LIMIT).toString('utf8');
  let value: unknown;
  try {
    // Its shape first: 15 MiB of nested arrays cost 1.3 GiB and 4 s of event loop in
    // JSON.parse before it threw (issue 26). Refused like any answer of the wrong shape.
    value = parseBoundedJson(response.body, API_JSON_LIMITS);
  } catch (error) {
    const reason =
      error instanceof JsonShapeError
        ? `the answer is JSON over its shape limits (${error.message}), expected ${what}`
        : `the answer is not JSON, expected ${what}`;
    throw shapeError(request, response.status, reason, start());
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    throw shapeError(
      request,
      response.status,
      `the answer is not ${what}: ${describeIssues(result.error)}`,
      start(),
    );
  }
  return result.data;
}

/**
 * A 2xx with an unexpected body. Not retryable: the same call gives the same body, and a
 * client and service that disagree on the contract need a person, not another attempt.
 */
export function shapeError(
  request: ApiRequest,
  status: number,
  reason: string,
  body: string,
): ApiError {
  const path = describePath(request);
  // The reason quotes the answer (a field name, a cursor): printable and bounded like any text
  // of the API's (error-text.ts).
  return new ApiError(`${request.method} ${path}: ${printableText(reason)}`, {
    status,
    body: printableText(body, ERROR_BODY_LIMIT),
    method: request.method,
    path,
    retryable: false,
  });
}
