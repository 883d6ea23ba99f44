/** Retries on the schedule of docs/retries.md#retry-schedule, exhaustion and redelivery, with a manual clock. */
import { beforeEach, expect, it } from 'vitest';
import { dispatcherForEachTest, makeEnvelope, makeRouting, PARTY } from './fixtures.ts';

const MINUTE = 60_000;
/** Minutes after the first attempt at which each of the 10 attempts happens. */
const OFFSETS_MIN = [0, 1, 2, 3, 4, 5, 15, 25, 55, 115];

const setup = dispatcherForEachTest({ status: 500, body: 'database down' });

beforeEach(() => {
  setup.dispatcher.createEndpoint(PARTY, { name: 'erp', url: setup.endpoint.url });
});

/** Moves the clock a minute at a time so each retry's HTTP round trip finishes before the next. */
async function advanceMinutes(minutes: number): Promise<void> {
  for (let i = 0; i < minutes; i++) {
    setup.clock.advance(MINUTE);
    await setup.dispatcher.idle();
  }
}

it('retries 9 times at 1,1,1,1,1,10,10,30,60 minutes, then the event is exhausted', async () => {
  const start = setup.clock.now();
  const envelope = makeEnvelope();
  setup.dispatcher.publish(envelope, makeRouting());
  await setup.dispatcher.idle();
  await advanceMinutes(130);

  const view = setup.dispatcher.delivery(envelope.eventId);
  expect(setup.endpoint.requests).toHaveLength(10);
  expect(view?.attempts.map((a) => (Date.parse(a.at) - start) / MINUTE)).toEqual(OFFSETS_MIN);
  expect(view?.attempts.every((a) => a.statusCode === 500 && a.bodyStart === 'database down')).toBe(
    true,
  );
  expect(view?.state).toBe('exhausted');
  expect(view?.reason).toMatch(/all 10 attempts failed; last: status 500/);
  expect(view?.nextAttemptAt).toBeUndefined();
  expect(setup.clock.pendingTimers()).toBe(0);
  // Every attempt is signed anew at its own time.
  const timestamps = setup.endpoint.requests.map(
    (r) => /^t=(\d+)/.exec(String(r.headers['svc-webhook-signature']))?.[1],
  );
  expect(timestamps.map((t) => (Number(t) * 1000 - start) / MINUTE)).toEqual(OFFSETS_MIN);
});

it('stops retrying once an attempt succeeds', async () => {
  const envelope = makeEnvelope();
  setup.dispatcher.publish(envelope, makeRouting());
  await setup.dispatcher.idle();
  await advanceMinutes(2);
  setup.endpoint.answer({ status: 204 });
  await advanceMinutes(10);
  expect(setup.endpoint.requests).toHaveLength(4);
  expect(setup.dispatcher.delivery(envelope.eventId)?.state).toBe('succeeded');
  expect(setup.clock.pendingTimers()).toBe(0);
});

it('redelivers an exhausted event with the same bytes, eventId and occurredAt', async () => {
  const envelope = makeEnvelope({ occurredAt: '2026-01-05T08:00:00.001Z' });
  setup.dispatcher.publish(envelope, makeRouting());
  await setup.dispatcher.idle();
  expect(() => setup.dispatcher.redeliver(envelope.eventId)).toThrow(/only an exhausted event/);
  await advanceMinutes(130);
  expect(setup.dispatcher.delivery(envelope.eventId)?.state).toBe('exhausted');

  setup.endpoint.answer({ status: 200 });
  setup.dispatcher.redeliver(envelope.eventId);
  await setup.dispatcher.idle();

  expect(setup.endpoint.requests).toHaveLength(11);
  const first = setup.endpoint.requests[0];
  const redelivered = setup.endpoint.requests[10];
  expect(redelivered?.body.equals(first?.body ?? Buffer.alloc(0))).toBe(true);
  const body = JSON.parse(redelivered?.body.toString('utf8') ?? '');
  expect(body.eventId).toBe(envelope.eventId);
  expect(body.occurredAt).toBe('2026-01-05T08:00:00.001Z');
  expect(redelivered?.headers['svc-webhook-event-id']).toBe(envelope.eventId);
  const view = setup.dispatcher.delivery(envelope.eventId);
  expect(view?.state).toBe('succeeded');
  expect(view?.attempts).toHaveLength(11);
  expect(() => setup.dispatcher.redeliver('no-such-event')).toThrow(/No event no-such-event/);
});

it('close() cancels scheduled retries', async () => {
  setup.dispatcher.publish(makeEnvelope(), makeRouting());
  await setup.dispatcher.idle();
  expect(setup.clock.pendingTimers()).toBe(1);
  setup.dispatcher.close();
  expect(setup.clock.pendingTimers()).toBe(0);
  await advanceMinutes(5);
  expect(setup.endpoint.requests).toHaveLength(1);
});
