/**
 * The webhook endpoint, as a sequence of named steps. Order matters: nothing costly happens
 * for a request before it has shown it might be authentic, then docs/retries.md#consumer-answer
 * applies. In turn:
 *
 *   1. before the body (before-body.ts): the signature header's form and timestamp (401), a
 *      Content-Encoding other than identity (415), a declared size over
 *      WEBHOOK_MAX_BODY_BYTES (413): a request nobody signed recently costs one header;
 *   2. admission (admit.ts): over the connection limit, or announcing more bytes than the
 *      in-flight budget has free, refused unread (503 with Retry-After: the service retries);
 *   3. the bounded read (read.ts): counted on the wire against the limit (413 as soon as it
 *      passes) and against the in-flight budget (503 as soon as its bytes do not fit);
 *   4. authentication (authenticate.ts): the signature over those raw bytes, then the
 *      optional credential (401);
 *   5. the envelope (decode-envelope.ts): JSON shape, strict UTF-8, JSON, envelope fields
 *      (400 for each);
 *   6. the durable insert (store-event.ts): committed to the inbox, or 503;
 *   7. the answer (answer.ts): 204, with one log line and one metric for every outcome.
 * Each request is one span (request-span.ts), active through these steps, its events saying
 * how far the request got.
 * Work on the event happens later, in the worker. The whole of it must fit the service's 5 s
 * (settings/answer-budget.ts).
 *
 * Answers (docs/how-it-works.md#answers): 204 stored, duplicate, test event or unknown action;
 * 401 signature or credential failed; 400 JSON over its shape limits, not UTF-8, not JSON, or
 * envelope fields missing/mistyped; 413 body too large; 415 compressed body; 405 other
 * methods; 503 the store could not commit, or the consumer is at its limits (the service
 * retries either way).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { SIGNATURE_HEADER } from '../../../protocol/index.ts';
import type { Metrics } from '../../metrics/index.ts';
import type { EventStore } from '../../store/events.ts';
import { headerValue } from '../../text/header-value.ts';
import { type Admission, createAdmission } from '../admission.ts';
import type { WebhookSettings } from '../settings.ts';
import { admitBody } from './admit.ts';
import { createAnswer } from './answer.ts';
import { createAuthenticate } from './authenticate.ts';
import { declaredSizeCheck, encodingCheck, signatureHeaderCheck } from './before-body.ts';
import { decodeEnvelope } from './decode-envelope.ts';
import { ABORTED, readWithinLimits } from './read.ts';
import { declaredLength } from './read-body.ts';
import { Rejection } from './rejection.ts';
import { startWebhookSpan } from './request-span.ts';
import { storeEvent } from './store-event.ts';

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

const METHOD_NOT_ALLOWED = new Rejection(
  'method_not_allowed',
  { status: 405, title: 'Method Not Allowed', detail: 'The webhook endpoint accepts POST only.' },
  { headers: { Allow: 'POST' } },
);

/**
 * The webhook route's handler, on node's own request and response: app.ts calls it for the
 * webhook path without going through express's router (docs/performance.md says what that
 * saves). It rejects only on a bug past every step, which the caller answers with a 500.
 */
export type WebhookHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function createWebhookHandler(deps: WebhookRouteDeps): WebhookHandler {
  const { config, events, logger, now } = deps;
  const admission =
    deps.admission ??
    createAdmission({
      maxConnections: config.webhookMaxConnections,
      maxInflightBytes: config.webhookMaxInflightBytes,
    });
  const authenticate = createAuthenticate({ config, now });
  const answer = createAnswer(deps);

  return async (req, res) => {
    const started = performance.now();
    const span = startWebhookSpan(req, config.webhookPath);
    const refuse = (rejection: Rejection) => {
      span.refused(rejection);
      answer.refused(req, res, started, rejection);
    };
    try {
      await span.run(async () => {
        if (req.method !== 'POST') return refuse(METHOD_NOT_ALLOWED);
        const signatureHeader = headerValue(req.headers, SIGNATURE_HEADER);
        const declared = declaredLength(req);
        const early =
          signatureHeaderCheck({
            header: signatureHeader,
            toleranceSeconds: config.webhookToleranceSeconds,
            now,
          }) ??
          encodingCheck(headerValue(req.headers, 'content-encoding')) ??
          declaredSizeCheck(declared, config.webhookMaxBodyBytes);
        if (early !== undefined) return refuse(early);

        const budget = admitBody(admission, declared);
        if (budget instanceof Rejection) return refuse(budget);
        // Held until the answer is sent: the body stays in memory until the event is committed.
        res.once('close', budget.release);
        const body = await readWithinLimits(req, config.webhookMaxBodyBytes, budget);
        if (body === ABORTED) {
          span.aborted();
          return answer.aborted(started);
        }
        if (body instanceof Rejection) return refuse(body);

        const unauthenticated = authenticate({ signatureHeader, body, headers: req.headers });
        if (unauthenticated !== undefined) return refuse(unauthenticated);
        span.verified();
        const envelope = decodeEnvelope(body);
        if (envelope instanceof Rejection) return refuse(envelope);
        span.envelope(envelope);

        // Inside the span: the stored event keeps its context (store-event.ts).
        const result = await storeEvent({ events, envelope, body, now, logger });
        if (result instanceof Rejection) return refuse(result);
        span.stored(result.stored);
        if (result.stored === 'inserted') deps.onEventStored();
        const { flag } = result.event;
        span.accepted(result.stored);
        answer.accepted(req, res, started, {
          outcome: result.stored === 'inserted' ? 'stored' : 'duplicate',
          status: 204,
          envelope,
          ...(flag === null ? {} : { reason: flag }),
        });
      });
    } catch (error) {
      // Thrown past every step (a bug): still recorded, and the span ended.
      span.failed(error);
      throw error;
    }
  };
}
