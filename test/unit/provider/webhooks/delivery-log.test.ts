/** Retention of the delivery log (docs/retries.md#retry-schedule): six months, pruned lazily. */
import { expect, it } from 'vitest';
import { DELIVERY_LOG_RETENTION_MS } from '../../../../src/protocol/index.ts';
import { createManualClock } from '../../../../src/provider/clock.ts';
import {
  createDeliveryLog,
  type DeliveryRecord,
} from '../../../../src/provider/webhooks/delivery-log.ts';

function record(eventId: string, state: DeliveryRecord['state'], loggedAt: number): DeliveryRecord {
  return {
    sequence: 0,
    envelope: {
      eventId,
      action: 'created',
      transfer: 'inbound',
      occurredAt: new Date(loggedAt).toISOString(),
      test: false,
      party: '0192:999999999',
      messageId: `m-${eventId}`,
      data: null,
    },
    body: '{}',
    routing: { category: 'inbound', documentType: 'Invoice', format: 'XML', ownChange: false },
    state,
    attempts: [],
    roundAttempts: 0,
    loggedAt,
  };
}

it('forgets settled events older than six months and keeps pending ones', () => {
  const clock = createManualClock();
  const log = createDeliveryLog({ clock });
  log.add(record('old-done', 'succeeded', clock.now()));
  log.add(record('old-pending', 'pending', clock.now()));
  clock.advance(DELIVERY_LOG_RETENTION_MS);
  log.add(record('new', 'exhausted', clock.now()));
  expect(
    log
      .list('0192:999999999')
      .map((r) => r.envelope.eventId)
      .sort(),
  ).toEqual(['new', 'old-done', 'old-pending']);
  clock.advance(1);
  expect(log.get('old-done')).toBeUndefined();
  expect(
    log
      .list('0192:999999999')
      .map((r) => r.envelope.eventId)
      .sort(),
  ).toEqual(['new', 'old-pending']);
  expect(log.list('0192:999999999', { messageId: 'm-new' })).toHaveLength(1);
});
