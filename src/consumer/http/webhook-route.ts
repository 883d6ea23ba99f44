/**
 * The webhook endpoint. Order matters: nothing costly happens for a request before it has shown
 * it might be authentic, then docs/retries.md#consumer-answer applies. In turn:
 *
 *   1. the signature header is parsed and its timestamp checked, before any body byte is read:
 *      a request nobody signed recently is refused for the price of one header (401);
 *   2. a Content-Encoding other than identity is refused unread (415): the service does not
 *      compress, and inflating before authenticating is how 2 MiB on the wire became 3 GiB;
 *   3. a declared body over WEBHOOK_MAX_BODY_BYTES is refused unread (413);
 *   4. over the connection limit, or announcing more bytes than the in-flight budget has free,
 *      the request is refused unread (503 with Retry-After: the service retries);
 *   5. the body is read, counted on the wire against the limit (413 as soon as it passes) and
 *      against the in-flight budget (503 as soon as its bytes do not fit);
 *   6. the signature is verified over those raw bytes (401), then the optional credential;
 *   7. the body's JSON shape is checked (nesting depth, members per object, string length:
 *      protocol/json-shape.ts), then it is decoded as strict UTF-8 and parsed as an envelope
 *      (400 for each), committed to the inbox, and only then answered 204.
 * Work on the event happens later, in the worker.
 *
 * Answers (docs/how-it-works.md#answers): 204 stored, duplicate, test event or unknown action;
 * 401 signature or credential failed; 400 JSON over its shape limits, not UTF-8, not JSON, or
 * envelope fields missing/mistyped;
 * 413 body too large; 415 compressed body; 405 other methods; 503 the store could not commit,
 * or the consumer is at its limits (the service retries either way).
 */
import { type Request, type Response, Router } from 'express';
import type { Logger } from 'pino';
import {
  ACTION_HEADER,
  checkJsonShape,
  checkSignatureHeader,
  EVENT_ID_HEADER,
  JsonShapeError,
  parseEnvelope,
  SIGNATURE_HEADER,
  SignatureError,
  TRANSFER_HEADER,
  verifySignature,
  WEBHOOK_JSON_LIMITS,
  type WebhookEnvelope,
} from '../../protocol/index.ts';
import type { Metrics, WebhookOutcome } from '../metrics.ts';
import { type EventStore, newEvent } from '../store/events.ts';
import { printableText } from '../text/error-text.ts';
import { type Admission, createAdmission } from './admission.ts';
import { createCredentialCheck } from './credential.ts';
import { type Problem, sendProblem } from './problem.ts';
import {
  BodyAbortedError,
  BodyOverBudgetError,
  BodyTooLargeError,
  declaredLength,
  discardBody,
  readBody,
} from './read-body.ts';
import type { WebhookSettings } from './settings.ts';

export interface WebhookRouteDeps {
  config: Pick<
    WebhookSettings,
    | 'webhookPath'
    | 'webhookSecrets'
    | 'webhookToleranceSeconds'
    | 'webhookMaxBodyBytes'
    | 'webhookMaxConnections'
    | 'webhookMaxInflightBytes'
    | 'webhookCredential'
  >;
  events: EventStore;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  onEventStored: () => void;
  /**
   * Shared with the listener, which counts its connections into it.
   * @default a fresh one from config (then only the in-flight byte limit applies)
   */
  admission?: Admission;
}

/** Per-request facts gathered on the way, logged once when the answer is sent. */
interface Outcome {
  outcome: WebhookOutcome;
  status: number;
  envelope?: WebhookEnvelope;
  reason?: string;
}

/** Seconds a refused-for-capacity client is asked to wait; the service retries anyway. */
const RETRY_AFTER_SECONDS = 1;
/**
 * Decodes the body or throws on any byte sequence that is not UTF-8 (RFC 8259 section 8.1).
 * A lenient decode would turn each bad sequence into U+FFFD, so two events whose eventIds differ
 * only there would be one event to the inbox: the second answered 204 as a duplicate and never
 * stored. A byte order mark is kept, and JSON.parse refuses it, as before.
 */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Characters kept of an unverified header value in a log line: a UUID fits, 16 KB does not. */
const LOGGED_HEADER_LIMIT = 100;

export function createWebhookRouter(deps: WebhookRouteDeps): Router {
  const { config, events, logger, metrics, now, onEventStored } = deps;
  const admission =
    deps.admission ??
    createAdmission({
      maxConnections: config.webhookMaxConnections,
      maxInflightBytes: config.webhookMaxInflightBytes,
    });
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
    // Routing headers are logged for tracing only, and cut short: they are not signed, so until
    // the body is verified they are whatever the sender wanted to put in our logs.
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

  const signatureProblem = (error: SignatureError): Problem => ({
    status: 401,
    title: 'Invalid signature',
    type: `urn:webhook-consumer:signature:${error.reason}`,
    detail: error.message,
  });

  const tooLarge: Problem = {
    status: 413,
    title: 'Body too large',
    detail: `The body exceeds WEBHOOK_MAX_BODY_BYTES (${config.webhookMaxBodyBytes} bytes).`,
  };

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

  router.post(config.webhookPath, async (req, res) => {
    const started: number = res.locals.started;
    const header = req.get(SIGNATURE_HEADER);

    try {
      checkSignatureHeader({ header, toleranceSeconds: config.webhookToleranceSeconds, now });
    } catch (error) {
      if (!(error instanceof SignatureError)) throw error;
      return reject(req, res, started, 'unauthorized', signatureProblem(error));
    }

    const encoding = req.get('content-encoding')?.trim().toLowerCase();
    if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
      res.set('Accept-Encoding', 'identity');
      return reject(req, res, started, 'unsupported_encoding', {
        status: 415,
        title: 'Unsupported Content-Encoding',
        detail: 'Send the body uncompressed: compressed bodies are not accepted.',
      });
    }

    const declared = declaredLength(req);
    if (declared !== undefined && declared > config.webhookMaxBodyBytes) {
      return reject(req, res, started, 'too_large', tooLarge);
    }

    const tooManyConnections = admission.overConnectionLimit();
    // The bytes the body sends are counted as they arrive; one announcing more than is free
    // now is refused before any is read.
    const budget = tooManyConnections ? undefined : admission.admit(declared ?? 0);
    const busy = (oneConnectionTooMany: boolean) => {
      res.set('Retry-After', String(RETRY_AFTER_SECONDS));
      // Over the connection limit this connection is one too many: it goes after the answer.
      if (oneConnectionTooMany) res.set('Connection', 'close');
      return reject(req, res, started, 'over_capacity', {
        status: 503,
        title: 'Too busy',
        detail: oneConnectionTooMany
          ? 'The consumer has too many open connections (WEBHOOK_MAX_CONNECTIONS); retry shortly.'
          : 'The consumer holds as many body bytes as it allows (WEBHOOK_MAX_INFLIGHT_BYTES); retry shortly.',
      });
    };
    if (budget === undefined) return busy(tooManyConnections);
    // Held until the answer is sent: the body stays in memory until the event is committed.
    res.once('close', budget.release);

    let body: Buffer;
    try {
      body = await readBody(req, config.webhookMaxBodyBytes, budget.take);
    } catch (error) {
      // What was read is dropped: its bytes are free now, not when the connection closes.
      budget.release();
      if (error instanceof BodyTooLargeError) {
        return reject(req, res, started, 'too_large', tooLarge);
      }
      if (error instanceof BodyOverBudgetError) return busy(false);
      if (error instanceof BodyAbortedError) {
        metrics.webhookReceived('aborted', (performance.now() - started) / 1000);
        logger.info({ outcome: 'aborted', verified: false }, 'webhook');
        return;
      }
      throw error;
    }

    try {
      verifySignature({
        header,
        body,
        secrets: config.webhookSecrets,
        toleranceSeconds: config.webhookToleranceSeconds,
        now,
      });
    } catch (error) {
      if (!(error instanceof SignatureError)) throw error;
      return reject(req, res, started, 'unauthorized', signatureProblem(error));
    }
    if (!credentialOk(req.headers)) {
      return reject(req, res, started, 'unauthorized', {
        status: 401,
        title: 'Invalid credential',
        detail: 'The configured credential (WEBHOOK_CREDENTIAL) was missing or did not match.',
      });
    }

    // Signed is not harmless: a 1 MiB body of nested arrays or of 70,000 keys held the event
    // loop for a second or more in JSON.parse (issue 26). The shape is checked first, on the
    // bytes (before they are decoded, which a bomb need not cost either), in one pass that
    // builds nothing; the worker parses the stored bytes again under the same limits.
    try {
      checkJsonShape(body, WEBHOOK_JSON_LIMITS);
    } catch (error) {
      if (!(error instanceof JsonShapeError)) throw error;
      return reject(req, res, started, 'bad_request', {
        status: 400,
        title: 'Body is JSON of an unsupported shape',
        type: `urn:webhook-consumer:json-shape:${error.limit}`,
        detail: `${error.message}; limits: nesting depth ${WEBHOOK_JSON_LIMITS.maxDepth}, ${WEBHOOK_JSON_LIMITS.maxKeysPerObject} members per object, ${WEBHOOK_JSON_LIMITS.maxStringBytes} bytes per string.`,
      });
    }
    let text: string;
    try {
      text = STRICT_UTF8.decode(body);
    } catch {
      return reject(req, res, started, 'bad_request', {
        status: 400,
        title: 'Body is not UTF-8',
        detail: 'The signed body is not valid UTF-8, which JSON between systems must be.',
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
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
    const event = newEvent(envelope, body, now());
    let stored: 'inserted' | 'duplicate';
    try {
      stored = await events.insert(event);
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
      ...(event.flag === null ? {} : { reason: event.flag }),
    });
  });

  return router;
}

/**
 * An unsigned header value as it may be logged: at most LOGGED_HEADER_LIMIT characters, and
 * printable (Node reads bytes 0x80-0x9F of a header as C1 controls, such as the escape U+009B).
 */
function unverifiedHeader(req: Request, name: string): string | undefined {
  const value = req.get(name);
  // One more than the limit: the text is cut to LOGGED_HEADER_LIMIT characters and an ellipsis.
  return value === undefined ? undefined : printableText(value, LOGGED_HEADER_LIMIT + 1);
}
