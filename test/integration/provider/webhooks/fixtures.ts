/** Events and routing for dispatcher tests; each test overrides only what it is about. */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { WebhookEnvelope } from '../../../../src/protocol/index.ts';
import { createManualClock, type ManualClock } from '../../../../src/provider/clock.ts';
import type { EventRouting } from '../../../../src/provider/events.ts';
import { createDispatcher, type Dispatcher } from '../../../../src/provider/webhooks/index.ts';

export const PARTY = '0192:999999999';

export function makeEnvelope(overrides: Partial<WebhookEnvelope> = {}): WebhookEnvelope {
  const messageId = overrides.messageId ?? randomUUID();
  return {
    eventId: randomUUID(),
    action: 'created',
    transfer: 'inbound',
    occurredAt: '2026-01-05T08:59:59.123Z',
    test: false,
    party: PARTY,
    messageId,
    data: { uniqueId: messageId, documentNo: 'INV-1', status: 'received' },
    ...overrides,
  };
}

export function makeRouting(overrides: Partial<EventRouting> = {}): EventRouting {
  return {
    category: 'inbound',
    documentType: 'Invoice',
    format: 'XML',
    ownChange: false,
    ...overrides,
  };
}

export function makeDispatcher(clock: ManualClock = createManualClock()): {
  dispatcher: Dispatcher;
  clock: ManualClock;
} {
  return { dispatcher: createDispatcher({ clock, logger: pino({ level: 'silent' }) }), clock };
}
