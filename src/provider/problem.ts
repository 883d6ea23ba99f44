/**
 * RFC 9457 problem details (DESIGN.md section 2: the messaging API's error format), and the
 * one error handler that turns the provider's typed errors into them.
 */
import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import {
  InvalidRequestError,
  MessageNotFoundError,
  ParticipantExistsError,
  StateConflictError,
  UnauthorizedError,
} from './errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** The detail of a 400 for a path the router could not decode. */
export const BAD_PERCENT_ESCAPE = 'The path contains an invalid percent-escape.';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  [extension: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Content Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function sendProblem(
  res: Response,
  status: number,
  detail: string,
  extensions: Record<string, unknown> = {},
): void {
  const problem: Problem = {
    type: 'about:blank',
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    ...extensions,
  };
  res.status(status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}

function statusOf(error: unknown): { status: number; extensions: Record<string, unknown> } {
  // The router could not decode a path parameter (`%zz`).
  if (error instanceof URIError) return { status: 400, extensions: {} };
  if (error instanceof InvalidRequestError) {
    return { status: 400, extensions: error.field === undefined ? {} : { field: error.field } };
  }
  if (error instanceof UnauthorizedError) return { status: 401, extensions: {} };
  if (error instanceof MessageNotFoundError) return { status: 404, extensions: {} };
  if (error instanceof StateConflictError || error instanceof ParticipantExistsError) {
    return { status: 409, extensions: {} };
  }
  // body-parser errors carry their status (400 unparseable JSON, 413 too large).
  const bodyStatus = (error as { status?: unknown; type?: unknown } | null)?.status;
  if (typeof bodyStatus === 'number' && bodyStatus >= 400 && bodyStatus < 500) {
    return { status: bodyStatus, extensions: {} };
  }
  return { status: 500, extensions: {} };
}

export function createProblemHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const { status, extensions } = statusOf(error);
    if (status >= 500) logger.error({ err: error, path: req.path }, 'provider request failed');
    const detail =
      status >= 500
        ? 'The provider simulator failed; see its log.'
        : error instanceof URIError
          ? BAD_PERCENT_ESCAPE
          : (error as { type?: unknown }).type === 'entity.parse.failed'
            ? `The body is not valid JSON: ${(error as Error).message}`
            : (error as Error).message;
    if (res.headersSent) return;
    sendProblem(res, status, detail, extensions);
  };
}
