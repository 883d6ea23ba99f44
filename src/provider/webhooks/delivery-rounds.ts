/**
 * The delivery of a published event, in rounds of attempts (the dispatcher starts one on
 * publish and on each redelivery).
 *
 * Delivery state machine (one record per event in the delivery log):
 *
 *   publish ──route──► exhausted           routing sends it nowhere: no rule in the category,
 *      │                  ▲                no matching filter, target "not sent", or own-change
 *      │                  │                status events switched off. The reason says which;
 *      ▼                  │                nothing goes over the wire (docs/webhook-endpoints.md#routing rule 4).
 *   pending ──attempt──► succeeded         200/201/202/204 within 5 s.
 *      ▲  │
 *      │  └─ failed attempt: retry n (1..9) after WEBHOOK_RETRY_DELAYS_MS[n-1] on the clock;
 *      │     after the 10th failed attempt of a round ──► exhausted.
 *      │
 *   redeliver (exhausted only): routes again under the current rules, so an event that had no
 *   rule can be sent once one is added, and starts a new round of up to 10 attempts. The stored
 *   envelope and its serialized bytes are reused, so eventId and occurredAt never change.
 *
 * Retry delays are counted from the end of the failed attempt. Timers go through the injected
 * Clock so tests (manual clock) and the sandbox (PROVIDER_TIME_SCALE) can compress two hours.
 */
import type { Context } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { WEBHOOK_RETRY_DELAYS_MS } from '../../protocol/index.ts';
import type { Clock } from '../clock.ts';
import { redactCredentialHeaders, scrubOutcome } from './credential-redaction.ts';
import type { DeliveryRecord } from './delivery-log.ts';
import { sendInDeliverySpan, startRoundContext } from './delivery-span.ts';
import type { EndpointRegistry } from './endpoints.ts';
import { routeEvent } from './routing.ts';
import { type AttemptOutcome, buildWebhookRequest, type WebhookRequest } from './send-webhook.ts';
import type { Category, Rule } from './types.ts';

export interface DeliveryRoundsOptions {
  clock: Clock;
  /** The dispatcher's logger. */
  logger: Logger;
  endpoints: EndpointRegistry;
  /** A participant's routing rules, as they are when a round starts. */
  rulesOf: (party: string) => Record<Category, Rule[]>;
  /** One attempt, over the dispatcher's connection pool. */
  send: (request: WebhookRequest) => Promise<AttemptOutcome>;
  /** Keeps an attempt in the dispatcher's in-flight set until it settles (idle()). */
  track: (attempt: Promise<void>) => void;
  /** True once the dispatcher closed: no retry is scheduled after that. */
  isClosed: () => boolean;
}

export interface DeliveryRounds {
  /** Routes the record under the current rules, then attempts it or logs it exhausted. */
  startRound(record: DeliveryRecord): void;
  exhaust(record: DeliveryRecord, reason: string, expected?: boolean): void;
}

export function createDeliveryRounds(options: DeliveryRoundsOptions): DeliveryRounds {
  const { clock, logger, endpoints } = options;
  // Each round's context (startRoundContext): every attempt of the round is its child, also a
  // retry that a timer starts hours later on the simulated clock.
  const roundContexts = new WeakMap<DeliveryRecord, Context>();

  /** `expected` for events routing sends nowhere: configuration, not a failure worth a warning. */
  function exhaust(record: DeliveryRecord, reason: string, expected = false): void {
    record.state = 'exhausted';
    record.reason = reason;
    delete record.nextAttemptAt;
    delete record.timer;
    logger[expected ? 'debug' : 'warn'](
      { eventId: record.envelope.eventId, reason },
      'webhook event exhausted',
    );
  }

  function startRound(record: DeliveryRecord): void {
    const decision = routeEvent(
      // `?? []`: a category this dispatcher does not know has no rules, so nothing is sent.
      options.rulesOf(record.envelope.party)[record.routing.category] ?? [],
      record.envelope.action,
      record.routing,
    );
    if (!decision.send) {
      delete record.endpointId;
      exhaust(record, decision.reason, true);
      return;
    }
    record.state = 'pending';
    record.endpointId = decision.endpointId;
    record.roundAttempts = 0;
    delete record.reason;
    roundContexts.set(record, startRoundContext(record.envelope));
    options.track(attempt(record));
  }

  async function attempt(record: DeliveryRecord): Promise<void> {
    delete record.timer;
    delete record.nextAttemptAt;
    const { party } = record.envelope;
    const endpointId = record.endpointId ?? '';
    if (!endpoints.has(party, endpointId)) {
      exhaust(record, `endpoint ${endpointId} was deleted`);
      return;
    }
    const at = clock.now();
    const endpoint = endpoints.get(party, endpointId);
    const request = buildWebhookRequest({
      envelope: record.envelope,
      body: record.body,
      endpoint,
      nowMs: at,
    });
    const sent = await sendInDeliverySpan(
      {
        request,
        envelope: record.envelope,
        attempt: record.roundAttempts + 1,
        parent: roundContexts.get(record),
      },
      options.send,
    );
    const { success, ...outcome } = scrubOutcome(sent, endpoint.credential);
    // What was sent, for the delivery log; never the credential.
    const headers = redactCredentialHeaders(request.headers, endpoint.credential);
    record.attempts.push({ at, headers, ...outcome });
    record.roundAttempts += 1;
    const context = { eventId: record.envelope.eventId, attempt: record.roundAttempts, ...outcome };
    if (success) {
      record.state = 'succeeded';
      logger.info(context, 'webhook delivered');
      return;
    }
    const delay = WEBHOOK_RETRY_DELAYS_MS[record.roundAttempts - 1];
    if (delay === undefined) {
      const last = outcome.error ?? `status ${outcome.statusCode}`;
      exhaust(record, `all ${record.roundAttempts} attempts failed; last: ${last}`);
      return;
    }
    logger.info({ ...context, retryInMs: delay }, 'webhook attempt failed');
    if (options.isClosed()) return;
    record.nextAttemptAt = clock.now() + delay;
    record.timer = clock.setTimer(() => {
      if (!options.isClosed()) options.track(attempt(record));
    }, delay);
  }

  return { startRound, exhaust };
}
