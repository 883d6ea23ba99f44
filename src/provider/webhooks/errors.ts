/**
 * Errors of the dispatcher's operations. Each carries the context a caller needs; the provider
 * maps them to HTTP problems in one place (../problem.ts, `problemFor`).
 */

/** A participant already has the most endpoints docs/retries.md#retry-schedule allows. */
export class EndpointLimitError extends Error {
  override readonly name = 'EndpointLimitError';
  readonly party: string;
  readonly limit: number;
  constructor(party: string, limit: number) {
    super(`Participant ${party} already has ${limit} webhook endpoints; delete one first.`);
    this.party = party;
    this.limit = limit;
  }
}

/** The endpoint's URL, name or credential cannot be used. */
export class InvalidEndpointError extends Error {
  override readonly name = 'InvalidEndpointError';
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

export class EndpointNotFoundError extends Error {
  override readonly name = 'EndpointNotFoundError';
  readonly party: string;
  readonly endpointId: string;
  constructor(party: string, endpointId: string) {
    super(`Participant ${party} has no webhook endpoint ${endpointId}.`);
    this.party = party;
    this.endpointId = endpointId;
  }
}

/** Deleting an endpoint that routing rules still target would silently drop their events. */
export class EndpointInUseError extends Error {
  override readonly name = 'EndpointInUseError';
  readonly endpointId: string;
  readonly categories: readonly string[];
  constructor(endpointId: string, categories: readonly string[]) {
    super(
      `Endpoint ${endpointId} is the target of ${categories.join(' and ')} routing rules; change the routing first.`,
    );
    this.endpointId = endpointId;
    this.categories = categories;
  }
}

/** A rule set breaks docs/webhook-endpoints.md#routing; `violations` lists every problem, not just the first. */
export class RoutingRuleError extends Error {
  override readonly name = 'RoutingRuleError';
  readonly category: string;
  readonly violations: readonly string[];
  constructor(category: string, violations: readonly string[]) {
    super(`The ${category} routing rules are invalid: ${violations.join('; ')}`);
    this.category = category;
    this.violations = violations;
  }
}

export class DeliveryNotFoundError extends Error {
  override readonly name = 'DeliveryNotFoundError';
  readonly eventId: string;
  constructor(eventId: string) {
    super(`No event ${eventId} in the delivery log (it may be older than the retention period).`);
    this.eventId = eventId;
  }
}

/** Only an exhausted event can be redelivered: a pending one is still being retried. */
export class DeliveryStateError extends Error {
  override readonly name = 'DeliveryStateError';
  readonly eventId: string;
  readonly state: string;
  constructor(eventId: string, state: string) {
    super(`Event ${eventId} is ${state}; only an exhausted event can be redelivered.`);
    this.eventId = eventId;
    this.state = state;
  }
}

/** The category or action asked for a test event does not exist, or its preview is gone. */
export class TestEventError extends Error {
  override readonly name = 'TestEventError';
  readonly field: 'category' | 'action' | 'eventId';
  constructor(field: 'category' | 'action' | 'eventId', message: string) {
    super(message);
    this.field = field;
  }
}
