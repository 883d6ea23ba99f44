/**
 * How a webhook step refuses a request: the outcome counted in the metrics and logged, the
 * problem answered (RFC 9457), and the headers that go with it. Each step returns one instead
 * of answering itself, so the answer, its log line and its metric are written in one place
 * (answer.ts) and a step can be tested without a server.
 */
import type { WebhookEnvelope } from '../../../protocol/index.ts';
import type { WebhookOutcome } from '../../metrics/index.ts';
import type { Problem } from '../problem.ts';

export class Rejection {
  readonly outcome: WebhookOutcome;
  readonly problem: Problem;
  /** Set on the answer: Allow, Accept-Encoding, Retry-After, Connection. */
  readonly headers: Readonly<Record<string, string>>;
  /** The verified envelope, once there is one: its ids go into the log line. */
  readonly envelope: WebhookEnvelope | undefined;
  /** The log line's reason. @default the problem's detail, else its title */
  readonly reason: string;

  constructor(
    outcome: WebhookOutcome,
    problem: Problem,
    options: {
      headers?: Record<string, string>;
      envelope?: WebhookEnvelope;
      reason?: string;
    } = {},
  ) {
    this.outcome = outcome;
    this.problem = problem;
    this.headers = options.headers ?? {};
    this.envelope = options.envelope;
    this.reason = options.reason ?? problem.detail ?? problem.title;
  }
}

/** The 413 of a body over WEBHOOK_MAX_BODY_BYTES, declared or counted on the wire. */
export function tooLarge(maxBodyBytes: number): Rejection {
  return new Rejection('too_large', {
    status: 413,
    title: 'Body too large',
    detail: `The body exceeds WEBHOOK_MAX_BODY_BYTES (${maxBodyBytes} bytes).`,
  });
}
