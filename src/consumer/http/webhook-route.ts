/**
 * The webhook endpoint. Order matters and follows SPEC.md section 7.1: read the raw body
 * (size-limited while reading), verify the signature over those bytes, check the optional
 * credential, parse the envelope, commit it to the inbox, and only then answer 204. Work on
 * the event happens later, in the worker.
 *
 * Answers (DESIGN.md section 4): 204 stored, duplicate, test event or unknown action;
 * 401 signature or credential failed; 400 not JSON or envelope fields missing/mistyped;
 * 413 body too large; 405 other methods; 503 the store could not commit (the service retries).
 */
import express, { type ErrorRequestHandler, type Request, type Response, Router } from 'express';
import type { Logger } from 'pino';
import {
  ACTION_HEADER,
  EVENT_ID_HEADER,
  isKnownAction,
  parseEnvelope,
  SIGNATURE_HEADER,
  SignatureError,
  TRANSFER_HEADER,
  verifySignature,
  type WebhookEnvelope,
} from '../../protocol/index.ts';
import type { Config } from '../config.ts';
import type { Metrics, WebhookOutcome } from '../metrics.ts';
import type { EventFlag, EventStore } from '../store/store.ts';
import { createCredentialCheck } from './credential.ts';
import { type Problem, sendProblem } from './problem.ts';

export interface WebhookRouteDeps {
  config: Pick<
    Config,
    | 'webhookPath'
    | 'webhookSecrets'
    | 'webhookToleranceSeconds'
    | 'webhookMaxBodyBytes'
    | 'webhookCredential'
  >;
  events: EventStore;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  onEventStored: () => void;
}

/** Per-request facts gathered on the way, logged once when the answer is sent. */
interface Outcome {
  outcome: WebhookOutcome;
  status: number;
  envelope?: WebhookEnvelope;
  reason?: string;
}

export function createWebhookRouter(deps: WebhookRouteDeps): Router {
  const { config, events, logger, metrics, now, onEventStored } = deps;
  const credentialOk =
    config.webhookCredential === undefined
      ? () => true
      : createCredentialCheck(config.webhookCredential);

  const finish = (
    req: Request,
    res: Response,
    started: number,
    result: Outcome,
    problem?: Problem,
  ) => {
    const seconds = (performance.now() - started) / 1000;
    metrics.webhookReceived(result.outcome, seconds);
    const { envelope } = result;
    // Routing headers are logged for tracing only; what the worker acts on is the verified body.
    logger[result.status >= 500 ? 'error' : 'info'](
      {
        eventId: envelope?.eventId ?? req.get(EVENT_ID_HEADER),
        action: envelope?.action ?? req.get(ACTION_HEADER),
        transfer: envelope?.transfer ?? req.get(TRANSFER_HEADER),
        messageId: envelope?.messageId,
        verified: envelope !== undefined,
        outcome: result.outcome,
        status: result.status,
        reason: result.reason,
        durationMs: Math.round(seconds * 1e5) / 100,
      },
      'webhook',
    );
    if (problem === undefined) res.status(result.status).end();
    else sendProblem(res, problem);
  };

  const reject = (
    req: Request,
    res: Response,
    started: number,
    outcome: WebhookOutcome,
    problem: Problem,
  ) =>
    finish(
      req,
      res,
      started,
      { outcome, status: problem.status, reason: problem.detail ?? problem.title },
      problem,
    );

  const router = Router();
  router.all(config.webhookPath, (req, res, next) => {
    res.locals.started = performance.now();
    if (req.method === 'POST') return next();
    res.set('Allow', 'POST');
    reject(req, res, res.locals.started, 'method_not_allowed', {
      status: 405,
      title: 'Method Not Allowed',
      detail: 'The webhook endpoint accepts POST only.',
    });
  });

  router.post(
    config.webhookPath,
    express.raw({ type: () => true, limit: config.webhookMaxBodyBytes }),
    async (req, res) => {
      const started: number = res.locals.started;
      const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);

      try {
        verifySignature({
          header: req.get(SIGNATURE_HEADER),
          body,
          secrets: config.webhookSecrets,
          toleranceSeconds: config.webhookToleranceSeconds,
          now,
        });
      } catch (error) {
        if (!(error instanceof SignatureError)) throw error;
        return reject(req, res, started, 'unauthorized', {
          status: 401,
          title: 'Invalid signature',
          type: `urn:webhook-consumer:signature:${error.reason}`,
          detail: error.message,
        });
      }
      if (!credentialOk(req.headers)) {
        return reject(req, res, started, 'unauthorized', {
          status: 401,
          title: 'Invalid credential',
          detail: 'The configured credential (WEBHOOK_CREDENTIAL) was missing or did not match.',
        });
      }

      let json: unknown;
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        return reject(req, res, started, 'bad_request', {
          status: 400,
          title: 'Body is not JSON',
          detail: 'The signed body could not be parsed as JSON.',
        });
      }
      const parsed = parseEnvelope(json);
      if (!parsed.ok) {
        return reject(req, res, started, 'bad_request', {
          status: 400,
          title: 'Invalid event envelope',
          detail: parsed.problems.join('; '),
          problems: parsed.problems,
        });
      }

      const { envelope } = parsed;
      const flag: EventFlag | null = envelope.test
        ? 'test'
        : isKnownAction(envelope.action)
          ? null
          : 'unknown_action';
      let stored: 'inserted' | 'duplicate';
      try {
        stored = await events.insert({
          eventId: envelope.eventId,
          action: envelope.action,
          transfer: envelope.transfer,
          messageId: envelope.messageId,
          party: envelope.party,
          occurredAt: envelope.occurredAt,
          test: envelope.test,
          flag,
          body,
          receivedAt: now(),
        });
      } catch (error) {
        logger.error({ err: error, eventId: envelope.eventId }, 'could not store webhook event');
        return finish(
          req,
          res,
          started,
          { outcome: 'store_unavailable', status: 503, envelope, reason: 'store write failed' },
          {
            status: 503,
            title: 'Event not stored',
            detail: 'The event could not be stored; it was not accepted and will be retried.',
          },
        );
      }
      if (stored === 'inserted') onEventStored();
      finish(req, res, started, {
        outcome: stored === 'inserted' ? 'stored' : 'duplicate',
        status: 204,
        envelope,
        ...(flag === null ? {} : { reason: flag }),
      });
    },
  );

  // Errors raised while reading the body (too large, aborted, bad encoding) land here.
  const bodyErrors: ErrorRequestHandler = (error, req, res, next) => {
    if (req.path !== config.webhookPath || res.headersSent) return next(error);
    const started: number = res.locals.started ?? performance.now();
    const status = typeof error?.status === 'number' ? error.status : 500;
    if (status === 413) {
      return reject(req, res, started, 'too_large', {
        status: 413,
        title: 'Body too large',
        detail: `The body exceeds WEBHOOK_MAX_BODY_BYTES (${config.webhookMaxBodyBytes} bytes).`,
      });
    }
    if (status >= 400 && status < 500) {
      return reject(req, res, started, 'bad_request', {
        status: 400,
        title: 'Unreadable body',
        detail: String(error?.message ?? 'The request body could not be read.'),
      });
    }
    next(error);
  };
  router.use(bodyErrors);
  return router;
}
