/**
 * Errors of the provider's model and routes. Each says what the caller can do about it; the
 * HTTP error handler (problem.ts) is the one place that maps them to status codes.
 */

/** The message does not exist, or is not visible to the participant asking. */
export class MessageNotFoundError extends Error {
  override readonly name = 'MessageNotFoundError';
  readonly messageId: string;
  constructor(messageId: string) {
    super(`No message ${messageId} for this participant.`);
    this.messageId = messageId;
  }
}

/** The requested change does not fit the message's current state (a final status, say). */
export class StateConflictError extends Error {
  override readonly name = 'StateConflictError';
  readonly messageId: string;
  constructor(messageId: string, message: string) {
    super(message);
    this.messageId = messageId;
  }
}

/**
 * The request itself is unusable; `field` names the culprit when there is one, `violations`
 * lists every problem found (a form shows them all at once, not one per attempt).
 */
export class InvalidRequestError extends Error {
  override readonly name = 'InvalidRequestError';
  readonly field: string | undefined;
  readonly violations: readonly string[];
  constructor(message: string, field?: string, violations?: readonly string[]) {
    super(message);
    this.field = field;
    this.violations = violations ?? [field === undefined ? message : `${field}: ${message}`];
  }
}

/**
 * A request body of a media type the route does not take: the messaging API takes JSON only
 * (api/json-body.ts).
 */
export class UnsupportedMediaTypeError extends Error {
  override readonly name = 'UnsupportedMediaTypeError';
  /** The media type the route takes. */
  readonly expected: string;
  /** The media type sent, without its parameters; undefined when there was no Content-Type. */
  readonly received: string | undefined;
  constructor(expected: string, received: string | undefined) {
    // A header can be kilobytes long; the start of it is enough to recognise it.
    super(
      received === undefined
        ? `The request body has no Content-Type; send it as ${expected}.`
        : `The request body is ${received.slice(0, 100)}; send it as ${expected}.`,
    );
    this.expected = expected;
    this.received = received;
  }
}

export class ParticipantExistsError extends Error {
  override readonly name = 'ParticipantExistsError';
  readonly identifier: string;
  constructor(identifier: string) {
    super(`Participant ${identifier} already exists.`);
    this.identifier = identifier;
  }
}

/** A participant-scoped admin route named a participant the simulator does not know. */
export class ParticipantNotFoundError extends Error {
  override readonly name = 'ParticipantNotFoundError';
  readonly identifier: string;
  constructor(identifier: string) {
    super(`No participant ${identifier}; add it with POST /admin/participants first.`);
    this.identifier = identifier;
  }
}

export class UnauthorizedError extends Error {
  override readonly name = 'UnauthorizedError';
  constructor(message = 'Send the messaging API token as "Authorization: Bearer <token>".') {
    super(message);
  }
}
