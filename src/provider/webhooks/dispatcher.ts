/**
 * The provider's webhook dispatcher: endpoints, routing rules, signed delivery with retries,
 * the delivery log, redelivery and test events. The delivery state machine, with its prose
 * header, is delivery-rounds.ts; test events are test-event-sender.ts.
 */
import { randomUUID } from 'node:crypto';
import { getCACertificates } from 'node:tls';
import type { Logger } from 'pino';
import { Agent } from 'undici';
import type { WebhookEnvelope } from '../../protocol/index.ts';
import type { Clock } from '../clock.ts';
import type { EventPublisher, EventRouting } from '../events.ts';
import {
  createDeliveryLog,
  type DeliveryFilter,
  type DeliveryRecord,
  toDeliveryDetail,
  toDeliveryView,
} from './delivery-log.ts';
import { createDeliveryRounds } from './delivery-rounds.ts';
import {
  createEndpointRegistry,
  type EndpointInput,
  previousSecretExpiry,
  toEndpointView,
} from './endpoints.ts';
import {
  DeliveryNotFoundError,
  DeliveryStateError,
  EndpointInUseError,
  RoutingRuleError,
} from './errors.ts';
import { validateRules } from './routing.ts';
import { sendWebhook } from './send-webhook.ts';
import { createTestEventSender } from './test-event-sender.ts';
import type {
  Category,
  DeliveryDetail,
  DeliveryView,
  EndpointView,
  Rule,
  RuleInput,
  TestEventInput,
  TestEventPreview,
  TestEventResult,
  TestEventSendInput,
} from './types.ts';
import { CATEGORIES } from './types.ts';

export interface DispatcherOptions {
  /** Time for retry timers, signature timestamps and log entries. */
  clock: Clock;
  logger: Logger;
  /** Generates endpoint ids and test-event ids. @default crypto.randomUUID */
  randomId?: () => string;
  /**
   * PEM certificate authorities trusted for HTTPS endpoints besides Node's default ones (for a
   * gateway whose certificate comes from a local CA). @default undefined (the default ones)
   */
  ca?: string;
}

export interface Dispatcher extends EventPublisher {
  createEndpoint(party: string, input: EndpointInput): { endpoint: EndpointView; secret: string };
  listEndpoints(party: string): EndpointView[];
  /** The new secret; the replaced one stays valid until `previousSecretExpiresAt` (24 h). */
  rotateSecret(
    party: string,
    endpointId: string,
  ): { secret: string; previousSecretExpiresAt: string };
  /** Throws EndpointInUseError while a routing rule targets the endpoint. */
  deleteEndpoint(party: string, endpointId: string): void;
  /** Replaces a category's rules; throws RoutingRuleError listing every violation. */
  setRules(party: string, category: Category, rules: RuleInput[]): void;
  getRouting(party: string): { inbound: Rule[]; outbound: Rule[] };
  /** The participant's delivery log, newest first. */
  deliveries(party: string, filter?: DeliveryFilter): DeliveryView[];
  /** Looks one event up by id, whatever its participant, with the exact body sent. */
  delivery(eventId: string): DeliveryDetail | undefined;
  /** Only for exhausted events; same eventId and occurredAt, new attempts. */
  redeliver(eventId: string): void;
  /**
   * A test event's exact body before sending it (docs/webhook-endpoints.md#test-events). The category defaults to
   * the first one routed to the endpoint, the action to `created`.
   */
  previewTestEvent(party: string, endpointId: string, input: TestEventInput): TestEventPreview;
  /**
   * Sends a test event straight to the endpoint (no routing), signed with its secret and with
   * its credential: the previewed one when `eventId` names a preview of this endpoint, else a
   * new one for `category` and `action`.
   */
  sendTestEvent(
    party: string,
    endpointId: string,
    input: TestEventSendInput,
  ): Promise<TestEventResult>;
  /** Resolves when no delivery attempt is in flight (tests await this after clock.advance). */
  idle(): Promise<void>;
  /** Cancels timers, stops new attempts. */
  close(): void;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { clock } = options;
  const logger = options.logger.child({ component: 'webhook-dispatcher' });
  const randomId = options.randomId ?? randomUUID;
  const endpoints = createEndpointRegistry({ clock, randomId });
  const log = createDeliveryLog({ clock });
  const routing = new Map<string, Record<Category, Rule[]>>();
  const inFlight = new Set<Promise<void>>();
  // Own connection pool, so close() releases exactly the sockets this dispatcher opened.
  // A `ca` replaces Node's trust store, so the extra CA is added to the default list (which
  // includes NODE_EXTRA_CA_CERTS) rather than given alone.
  const connect =
    options.ca === undefined
      ? {}
      : { connect: { ca: [...getCACertificates('default'), options.ca] } };
  const agent = new Agent({ connections: 16, ...connect });
  let closed = false;
  const rounds = createDeliveryRounds({
    clock,
    logger,
    endpoints,
    rulesOf,
    send: (request) => sendWebhook(request, { dispatcher: agent }),
    track,
    isClosed: () => closed,
  });
  const testEvents = createTestEventSender({
    endpoints,
    rulesOf: (party) => rulesOf(party),
    clock,
    randomId,
    send: (request) => {
      // A test event goes out on a connection of its own, closed after: its answer and time
      // are what a new connection to the endpoint gets, never a pooled socket the endpoint
      // closed meanwhile (a receiver restarted since the last event answers a reused socket
      // with a reset, which is no diagnosis of the endpoint).
      const oneShot = new Agent({ connections: 1, ...connect });
      const outcome = sendWebhook(request, { dispatcher: oneShot }).finally(() => oneShot.close());
      track(outcome.then(() => undefined));
      return outcome;
    },
  });

  function rulesOf(party: string): Record<Category, Rule[]> {
    let rules = routing.get(party);
    if (rules === undefined) {
      rules = { inbound: [], outbound: [] };
      routing.set(party, rules);
    }
    return rules;
  }

  function track(promise: Promise<void>): void {
    const tracked = promise
      .catch((error: unknown) => logger.error({ err: error }, 'webhook attempt crashed'))
      .finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  }

  const dispatcher: Dispatcher = {
    publish(envelope: WebhookEnvelope, eventRouting: EventRouting): void {
      if (closed) {
        logger.warn({ eventId: envelope.eventId }, 'dispatcher closed; event dropped');
        return;
      }
      if (log.has(envelope.eventId)) {
        logger.warn({ eventId: envelope.eventId }, 'event published twice; ignored');
        return;
      }
      const record: DeliveryRecord = {
        sequence: log.nextSequence(),
        envelope,
        body: JSON.stringify(envelope),
        routing: eventRouting,
        state: 'pending',
        attempts: [],
        roundAttempts: 0,
        loggedAt: clock.now(),
      };
      log.add(record);
      rounds.startRound(record);
    },

    createEndpoint(party, input) {
      const isFirst = endpoints.list(party).length === 0;
      const endpoint = endpoints.create(party, input);
      const rules = rulesOf(party);
      // docs/webhook-endpoints.md#endpoints: the first endpoint receives every category until the user routes otherwise.
      if (isFirst && rules.inbound.length === 0 && rules.outbound.length === 0) {
        for (const category of CATEGORIES) {
          rules[category] = [{ target: endpoint.id, statusEventsForOwnChanges: true }];
        }
      }
      return { endpoint: toEndpointView(endpoint, clock.now()), secret: endpoint.secret };
    },

    listEndpoints: (party) =>
      endpoints.list(party).map((endpoint) => toEndpointView(endpoint, clock.now())),

    rotateSecret(party, endpointId) {
      const secret = endpoints.rotate(party, endpointId);
      const expiry = previousSecretExpiry(endpoints.get(party, endpointId), clock.now()) ?? 0;
      return { secret, previousSecretExpiresAt: new Date(expiry).toISOString() };
    },

    deleteEndpoint(party, endpointId) {
      endpoints.get(party, endpointId);
      const rules = rulesOf(party);
      const using = CATEGORIES.filter((c) => rules[c].some((rule) => rule.target === endpointId));
      if (using.length > 0) throw new EndpointInUseError(endpointId, using);
      endpoints.remove(party, endpointId);
      for (const record of log.pending()) {
        if (record.envelope.party === party && record.endpointId === endpointId && record.timer) {
          record.timer.cancel();
          rounds.exhaust(record, `endpoint ${endpointId} was deleted`);
        }
      }
    },

    setRules(party, category, inputs) {
      if (!CATEGORIES.includes(category)) {
        throw new RoutingRuleError(String(category), [`unknown category ${String(category)}`]);
      }
      const ids = new Set(endpoints.list(party).map((endpoint) => endpoint.id));
      const { rules, violations } = validateRules(inputs, ids);
      if (violations.length > 0) throw new RoutingRuleError(category, violations);
      rulesOf(party)[category] = rules;
    },

    getRouting(party) {
      const rules = rulesOf(party);
      return {
        inbound: rules.inbound.map((r) => ({ ...r })),
        outbound: rules.outbound.map((r) => ({ ...r })),
      };
    },

    deliveries: (party, filter) => log.list(party, filter).map(toDeliveryView),

    delivery(eventId) {
      const record = log.get(eventId);
      return record === undefined ? undefined : toDeliveryDetail(record);
    },

    redeliver(eventId) {
      const record = log.get(eventId);
      if (record === undefined) throw new DeliveryNotFoundError(eventId);
      if (record.state !== 'exhausted') throw new DeliveryStateError(eventId, record.state);
      logger.info({ eventId }, 'redelivering exhausted event');
      rounds.startRound(record);
    },

    previewTestEvent: (party, endpointId, input) => testEvents.preview(party, endpointId, input),

    sendTestEvent: (party, endpointId, input) => testEvents.send(party, endpointId, input),

    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    close() {
      if (closed) return;
      closed = true;
      for (const record of log.pending()) record.timer?.cancel();
      agent
        .close()
        .catch((error: unknown) => logger.warn({ err: error }, 'closing the HTTP agent failed'));
    },
  };
  return dispatcher;
}
