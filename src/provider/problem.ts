/**
 * RFC 9457 problem details (docs/decisions.md: the messaging API's error format), and the
 * one place where the provider's typed errors, the dispatcher's included, get an HTTP status:
 * the messaging API, the admin API and the console's calls all answer through it.
 */
import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import {
  InvalidRequestError,
  MessageNotFoundError,
  ParticipantExistsError,
  ParticipantNotFoundError,
  StateConflictError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from './errors.ts';
import {
  DeliveryNotFoundError,
  DeliveryStateError,
  EndpointInUseError,
  EndpointLimitError,
  EndpointNotFoundError,
  InvalidEndpointError,
  RoutingRuleError,
  TestEventError,
} from './webhooks/errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** The detail of a 400 for a path the router could not decode. */
export const BAD_PERCENT_ESCAPE = 'The path contains an invalid percent-escape.';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** The one query parameter or body field at fault, when there is one. */
  field?: string;
  /** Every problem with the input (400), so a form can show them all at once. */
  violations?: readonly string[];
  [extension: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
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

/** The problem an error is answered with; 500 for anything not known to be the caller's fault. */
export function problemFor(error: unknown): Problem {
  const make = (status: number, detail: string, extensions: Partial<Problem> = {}): Problem => ({
    type: 'about:blank',
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    ...extensions,
  });
  // The router could not decode a path parameter (`%zz`).
  if (error instanceof URIError) return make(400, BAD_PERCENT_ESCAPE);
  if (error instanceof InvalidRequestError) {
    return make(400, error.message, {
      ...(error.field === undefined ? {} : { field: error.field }),
      violations: error.violations,
    });
  }
  if (error instanceof InvalidEndpointError || error instanceof TestEventError) {
    return make(400, error.message, {
      field: error.field,
      violations: [`${error.field}: ${error.message}`],
    });
  }
  if (error instanceof RoutingRuleError) {
    return make(400, error.message, {
      title: 'Invalid routing rules',
      violations: error.violations,
    });
  }
  if (error instanceof UnauthorizedError) return make(401, error.message);
  if (error instanceof UnsupportedMediaTypeError) return make(415, error.message);
  if (
    error instanceof MessageNotFoundError ||
    error instanceof ParticipantNotFoundError ||
    error instanceof EndpointNotFoundError ||
    error instanceof DeliveryNotFoundError
  ) {
    return make(404, error.message);
  }
  if (error instanceof EndpointLimitError) {
    return make(409, error.message, { title: 'Endpoint limit reached' });
  }
  if (error instanceof EndpointInUseError) {
    return make(409, error.message, { title: 'Endpoint in use' });
  }
  if (error instanceof DeliveryStateError) {
    return make(409, error.message, { title: 'Event not exhausted' });
  }
  if (error instanceof StateConflictError || error instanceof ParticipantExistsError) {
    return make(409, error.message);
  }
  // body-parser errors carry their status (400 unparseable JSON, 413 too large, 415 charset).
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const parseFailed = (error as { type?: unknown }).type === 'entity.parse.failed';
    return make(
      status,
      parseFailed
        ? `The request body is not valid JSON: ${(error as Error).message}`
        : String((error as Error).message),
    );
  }
  return make(500, 'The provider simulator failed; see its log.');
}

export function createProblemHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const { status, ...rest } = problemFor(error);
    if (status >= 500) logger.error({ err: error, path: req.path }, 'provider request failed');
    sendProblem(res, status, rest.detail, rest);
  };
}
