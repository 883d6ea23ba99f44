/**
 * The durable insert: the event is committed to the inbox (a duplicate eventId changes
 * nothing) before anything is answered, so a 204 is never sent for an event a crash could
 * lose. A store that cannot commit (locked, away, past its deadline) is a 503: the event was
 * not accepted, and the service retries it.
 */
import type { Logger } from 'pino';
import type { WebhookEnvelope } from '../../../protocol/index.ts';
import {
  type EventStore,
  type InsertOutcome,
  type NewEvent,
  newEvent,
} from '../../store/events.ts';
import { activeTraceParent } from '../../tracing/trace-parent.ts';
import { Rejection } from './rejection.ts';

export async function storeEvent(options: {
  events: EventStore;
  envelope: WebhookEnvelope;
  body: Buffer;
  now: () => number;
  logger: Logger;
}): Promise<{ stored: InsertOutcome; event: NewEvent } | Rejection> {
  const { envelope } = options;
  // The webhook request span is active here (route.ts): the event keeps its context, and the
  // worker's spans for it join the request's trace (null when tracing is off).
  const event = newEvent(envelope, options.body, options.now(), activeTraceParent());
  try {
    return { stored: await options.events.insert(event), event };
  } catch (error) {
    options.logger.error(
      { err: error, eventId: envelope.eventId },
      'could not store webhook event',
    );
    return new Rejection(
      'store_unavailable',
      {
        status: 503,
        title: 'Event not stored',
        detail: 'The event could not be stored; it was not accepted and will be retried.',
      },
      { envelope, reason: 'store write failed' },
    );
  }
}
