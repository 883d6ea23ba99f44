/**
 * The span attributes an event carries on both sides of a webhook (docs/operating.md#tracing):
 * in the consumer's spans (src/consumer/tracing/tracer.ts) and in the simulator's delivery
 * spans (src/provider/webhooks/delivery-span.ts), so one query in a trace view finds both
 * sides of an event. The service's own words under one namespace: no semantic convention has a
 * message of an invoicing service. Values are identifiers and outcomes only, never a body.
 */
export const EVENT_ATTR = {
  messageId: 'invoicing.message.id',
  eventId: 'invoicing.event.id',
  action: 'invoicing.action',
  transfer: 'invoicing.transfer',
  outcome: 'invoicing.outcome',
} as const;

/** An event's identifiers as span attributes (an envelope, a stored event). */
export function eventAttributes(event: {
  eventId: string;
  messageId: string;
  action: string;
  transfer: string;
}): Record<string, string> {
  return {
    [EVENT_ATTR.eventId]: event.eventId,
    [EVENT_ATTR.messageId]: event.messageId,
    [EVENT_ATTR.action]: event.action,
    [EVENT_ATTR.transfer]: event.transfer,
  };
}
