/** Events, routing and a dispatcher for dispatcher tests; each test overrides only what it is about. */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterEach, beforeEach } from 'vitest';
import type { WebhookEnvelope } from '../../../../src/protocol/index.ts';
import { createManualClock, type ManualClock } from '../../../../src/provider/clock.ts';
import { createDispatcher, type Dispatcher } from '../../../../src/provider/webhooks/index.ts';
import { buildEnvelope } from '../../../support/webhooks.ts';
import {
  type Answer,
  type RecordingEndpoint,
  startRecordingEndpoint,
} from './recording-endpoint.ts';

export { makeRouting } from '../../../support/event-routing.ts';

export const PARTY = '0192:999999999';

/** A `created` event of the sandbox participant, dated, with a descriptor as its data. */
export function makeEnvelope(overrides: Partial<WebhookEnvelope> = {}): WebhookEnvelope {
  const messageId = overrides.messageId ?? randomUUID();
  return buildEnvelope({
    action: 'created',
    occurredAt: '2026-01-05T08:59:59.123Z',
    party: PARTY,
    messageId,
    data: { uniqueId: messageId, documentNo: 'INV-1', status: 'received' },
    ...overrides,
  });
}

export function makeDispatcher(clock: ManualClock = createManualClock()): {
  dispatcher: Dispatcher;
  clock: ManualClock;
} {
  return { dispatcher: createDispatcher({ clock, logger: pino({ level: 'silent' }) }), clock };
}

export interface DispatcherTest {
  dispatcher: Dispatcher;
  clock: ManualClock;
  /** A real endpoint on a free port, recording what it receives. */
  endpoint: RecordingEndpoint;
}

/**
 * A dispatcher on a manual clock and an endpoint answering `answer`, fresh for each test of the
 * calling file: started in beforeEach, closed in afterEach. The object returned stays the same
 * and is refilled with each test's, as testProviderForEachTest's is (../helpers.ts).
 */
export function dispatcherForEachTest(answer?: Answer): DispatcherTest {
  // Empty until the first beforeEach: nothing may use it outside a test.
  const current = {} as DispatcherTest;
  beforeEach(async () => {
    const endpoint = await startRecordingEndpoint(answer);
    Object.assign(current, { endpoint, ...makeDispatcher() });
  });
  afterEach(async () => {
    current.dispatcher.close();
    await current.endpoint.close();
  });
  return current;
}
