import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Rejection } from '../../../../../src/consumer/http/webhook/rejection.ts';
import { storeEvent } from '../../../../../src/consumer/http/webhook/store-event.ts';
import { openTempStore } from '../../../../support/sqlite.ts';
import { buildEnvelope } from '../../../../support/webhooks.ts';

const envelope = buildEnvelope({
  eventId: 'evt-1',
  action: 'created',
  messageId: 'm-1',
  data: {},
});
const body = Buffer.from(JSON.stringify(envelope));
const logger = pino({ level: 'silent' });
const now = () => 1_800_000_000_000;

let dispose: (() => Promise<void>) | undefined;
afterEach(async () => {
  await dispose?.();
  dispose = undefined;
});

describe('the durable insert', () => {
  it('commits the event exactly as received, and a second time answers duplicate', async () => {
    const store = await openTempStore();
    dispose = store.dispose;
    const first = await storeEvent({ events: store.events, envelope, body, now, logger });
    expect(first).toMatchObject({ stored: 'inserted', event: { eventId: 'evt-1', flag: null } });
    expect((await store.events.get('evt-1'))?.body.equals(body)).toBe(true);
    const again = await storeEvent({ events: store.events, envelope, body, now, logger });
    expect(again).toMatchObject({ stored: 'duplicate' });
  });

  it('answers 503 when the store cannot commit: the event was not accepted', async () => {
    const store = await openTempStore();
    await store.dispose();
    const result = await storeEvent({ events: store.events, envelope, body, now, logger });
    expect(result).toBeInstanceOf(Rejection);
    const rejection = result as Rejection;
    expect(rejection.outcome).toBe('store_unavailable');
    expect(rejection.problem).toMatchObject({ status: 503, title: 'Event not stored' });
    expect(rejection.envelope?.eventId).toBe('evt-1');
    expect(rejection.reason).toBe('store write failed');
  });
});
