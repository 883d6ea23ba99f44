/**
 * Errors of the provider's model and routes. Each says what the caller can do about it; the
 * HTTP error handler (problem.ts) is the one place that maps them to status codes.
 */

/** The message does not exist, or is not visible to the participant asking. */
export class MessageNotFoundError extends Error {
  override readonly name = 'MessageNotFoundError';
  constructor(readonly messageId: string) {
    super(`No message ${messageId} for this participant.`);
  }
}

/** The requested change does not fit the message's current state (a final status, say). */
export class StateConflictError extends Error {
  override readonly name = 'StateConflictError';
  constructor(
    readonly messageId: string,
    message: string,
  ) {
    super(message);
  }
}

/** The request itself is unusable; `field` names the culprit when there is one. */
export class InvalidRequestError extends Error {
  override readonly name = 'InvalidRequestError';
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export class ParticipantExistsError extends Error {
  override readonly name = 'ParticipantExistsError';
  constructor(readonly identifier: string) {
    super(`Participant ${identifier} already exists.`);
  }
}

export class UnauthorizedError extends Error {
  override readonly name = 'UnauthorizedError';
  constructor() {
    super('Send the messaging API token as "Authorization: Bearer <token>".');
  }
}
