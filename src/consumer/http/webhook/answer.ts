/**
 * The webhook's answer, its one log line and its metric, written in one place for every
 * outcome. Routing headers are logged for tracing only, and cut short: they are not signed,
 * so until the body is verified they are whatever the sender wanted to put in our logs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import {
  ACTION_HEADER,
  EVENT_ID_HEADER,
  TRANSFER_HEADER,
  type WebhookEnvelope,
} from '../../../protocol/index.ts';
import type { Metrics, WebhookOutcome } from '../../metrics/index.ts';
import { printableText } from '../../text/error-text.ts';
import { headerValue } from '../../text/header-value.ts';
import { type Problem, sendProblem } from '../problem.ts';
import { discardBody } from './read-body.ts';
import type { Rejection } from './rejection.ts';

/** Characters kept of an unverified header value in a log line: a UUID fits, 16 KB does not. */
const LOGGED_HEADER_LIMIT = 100;

/** What is logged of a request once it is answered. */
interface Outcome {
  outcome: WebhookOutcome;
  status: number;
  envelope?: WebhookEnvelope | undefined;
  reason?: string | undefined;
}

export interface Answer {
  /** 204: stored, a duplicate, a test event or an unknown action (`reason` says which). */
  accepted(
    req: IncomingMessage,
    res: ServerResponse,
    started: number,
    outcome: Outcome & { status: 204 },
  ): void;
  refused(req: IncomingMessage, res: ServerResponse, started: number, rejection: Rejection): void;
  /** The client left mid-body: counted and logged, nothing to answer. */
  aborted(started: number): void;
}

export function createAnswer(deps: { logger: Logger; metrics: Metrics }): Answer {
  const { logger, metrics } = deps;
  const finish = (
    req: IncomingMessage,
    res: ServerResponse,
    started: number,
    result: Outcome,
    problem?: Problem,
  ) => {
    const seconds = (performance.now() - started) / 1000;
    metrics.webhookReceived(result.outcome, seconds);
    const { envelope } = result;
    logger[result.status >= 500 ? 'error' : 'info'](
      {
        eventId: envelope?.eventId ?? unverifiedHeader(req, EVENT_ID_HEADER),
        action: envelope?.action ?? unverifiedHeader(req, ACTION_HEADER),
        transfer: envelope?.transfer ?? unverifiedHeader(req, TRANSFER_HEADER),
        messageId: envelope?.messageId,
        verified: envelope !== undefined,
        outcome: result.outcome,
        status: result.status,
        reason: result.reason,
        durationMs: Math.round(seconds * 1e5) / 100,
      },
      'webhook',
    );
    // Answered before the body was read (or all of it): throw the rest away, within limits.
    discardBody(req);
    if (problem === undefined) {
      res.statusCode = result.status;
      res.end();
    } else sendProblem(res, problem);
  };
  return {
    accepted: (req, res, started, outcome) => finish(req, res, started, outcome),
    refused(req, res, started, rejection) {
      for (const [name, value] of Object.entries(rejection.headers)) res.setHeader(name, value);
      const { outcome, problem, envelope, reason } = rejection;
      finish(req, res, started, { outcome, status: problem.status, envelope, reason }, problem);
    },
    aborted(started) {
      metrics.webhookReceived('aborted', (performance.now() - started) / 1000);
      logger.info({ outcome: 'aborted', verified: false }, 'webhook');
    },
  };
}

/**
 * An unsigned header value as it may be logged: at most LOGGED_HEADER_LIMIT characters, and
 * printable (Node reads bytes 0x80-0x9F of a header as C1 controls, such as the escape U+009B).
 */
function unverifiedHeader(req: IncomingMessage, name: string): string | undefined {
  // One more than the limit: the text is cut to LOGGED_HEADER_LIMIT characters and an ellipsis.
  const value = headerValue(req.headers, name);
  return value === undefined ? undefined : printableText(value, LOGGED_HEADER_LIMIT + 1);
}
