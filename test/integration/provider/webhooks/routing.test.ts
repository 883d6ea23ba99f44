/** docs/webhook-endpoints.md#routing through the dispatcher: what reaches which endpoint, and what is logged. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../../../src/provider/clock.ts';
import { type Dispatcher, RoutingRuleError } from '../../../../src/provider/webhooks/index.ts';
import { makeDispatcher, makeEnvelope, makeRouting, PARTY } from './fixtures.ts';
import { type RecordingEndpoint, startRecordingEndpoint } from './recording-endpoint.ts';

let invoices: RecordingEndpoint;
let orders: RecordingEndpoint;
let dispatcher: Dispatcher;
let clock: ManualClock;

beforeEach(async () => {
  invoices = await startRecordingEndpoint();
  orders = await startRecordingEndpoint();
  ({ dispatcher, clock } = makeDispatcher());
});

afterEach(async () => {
  dispatcher.close();
  await Promise.all([invoices.close(), orders.close()]);
});

function received(endpoint: RecordingEndpoint): string[] {
  return endpoint.requests.map((r) => JSON.parse(r.body.toString('utf8')).eventId);
}

describe('first endpoint', () => {
  it('receives every category, with one catch-all rule per category', async () => {
    const { endpoint } = dispatcher.createEndpoint(PARTY, { name: 'all', url: invoices.url });
    dispatcher.createEndpoint(PARTY, { name: 'second', url: orders.url });
    const rule = { target: endpoint.id, statusEventsForOwnChanges: true };
    expect(dispatcher.getRouting(PARTY)).toEqual({ inbound: [rule], outbound: [rule] });

    const inbound = makeEnvelope({ transfer: 'inbound' });
    const outbound = makeEnvelope({ transfer: 'outbound', action: 'messageStatusChanged' });
    dispatcher.publish(
      inbound,
      makeRouting({ category: 'inbound', documentType: 'Order', format: 'EDI' }),
    );
    dispatcher.publish(outbound, makeRouting({ category: 'outbound', format: 'PDF' }));
    await dispatcher.idle();
    expect(received(invoices)).toEqual([inbound.eventId, outbound.eventId]);
    expect(orders.requests).toHaveLength(0);
  });

  it('does not replace rules the participant already set', () => {
    dispatcher.setRules(PARTY, 'inbound', [{ target: null }]);
    dispatcher.createEndpoint(PARTY, { name: 'first', url: invoices.url });
    expect(dispatcher.getRouting(PARTY)).toEqual({
      inbound: [{ target: null, statusEventsForOwnChanges: true }],
      outbound: [],
    });
  });
});

it('allows 25 endpoints per participant and refuses the 26th', () => {
  for (let i = 0; i < 25; i++)
    dispatcher.createEndpoint(PARTY, { name: `e${i}`, url: invoices.url });
  expect(() => dispatcher.createEndpoint(PARTY, { name: 'e25', url: invoices.url })).toThrow(
    expect.objectContaining({ name: 'EndpointLimitError', limit: 25 }),
  );
  expect(dispatcher.listEndpoints(PARTY)).toHaveLength(25);
  // The limit is per participant.
  expect(() =>
    dispatcher.createEndpoint('0192:111111111', { name: 'x', url: invoices.url }),
  ).not.toThrow();
});

describe('filters', () => {
  let invoiceId: string;
  let orderId: string;

  beforeEach(() => {
    invoiceId = dispatcher.createEndpoint(PARTY, { name: 'inv', url: invoices.url }).endpoint.id;
    orderId = dispatcher.createEndpoint(PARTY, { name: 'ord', url: orders.url }).endpoint.id;
    dispatcher.setRules(PARTY, 'inbound', [
      { filter: 'Invoice/*, CreditNote/XML', target: invoiceId },
      { filter: 'Order/*', target: orderId },
    ]);
  });

  it('send each event to the rule whose filter matches its document type and format', async () => {
    const invoice = makeEnvelope();
    const creditNote = makeEnvelope();
    const order = makeEnvelope();
    dispatcher.publish(invoice, makeRouting({ documentType: 'Invoice', format: 'PDF' }));
    dispatcher.publish(creditNote, makeRouting({ documentType: 'CreditNote', format: 'XML' }));
    dispatcher.publish(order, makeRouting({ documentType: 'Order', format: 'EDI' }));
    await dispatcher.idle();
    expect(received(invoices)).toEqual([invoice.eventId, creditNote.eventId]);
    expect(received(orders)).toEqual([order.eventId]);
  });

  it('require a filter on every rule once there is more than one, listing every violation', () => {
    let error: unknown;
    try {
      dispatcher.setRules(PARTY, 'outbound', [
        { target: invoiceId },
        { filter: 'Order/*', target: orderId },
        { target: 'unknown-endpoint' },
      ]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RoutingRuleError);
    expect((error as RoutingRuleError).violations).toEqual([
      'rule 1: a filter is required when a category has more than one rule',
      'rule 3: target unknown-endpoint is not an endpoint of this participant',
      'rule 3: a filter is required when a category has more than one rule',
    ]);
    expect(dispatcher.getRouting(PARTY).outbound).toHaveLength(1);
  });

  it('reject a combination covered by two rules, also through a wildcard', () => {
    expect(() =>
      dispatcher.setRules(PARTY, 'inbound', [
        { filter: 'Invoice/XML', target: invoiceId },
        { filter: '*/XML', target: orderId },
      ]),
    ).toThrow(/rules 1 and 2 both cover Invoice\/XML/);
  });

  it('send nothing for an event no rule matches: exhausted at once with the reason, redeliverable after a rule change', async () => {
    const despatch = makeEnvelope({ action: 'deliveryNotified' });
    dispatcher.publish(despatch, makeRouting({ documentType: 'DespatchAdvice', format: 'XML' }));
    await dispatcher.idle();
    expect(invoices.requests).toHaveLength(0);
    expect(orders.requests).toHaveLength(0);
    const view = dispatcher.delivery(despatch.eventId);
    expect(view).toMatchObject({ state: 'exhausted', attempts: [] });
    expect(view?.reason).toBe('not sent: no inbound routing rule matches DespatchAdvice/XML');
    expect(clock.pendingTimers()).toBe(0);

    dispatcher.setRules(PARTY, 'inbound', [
      { filter: 'Invoice/*,CreditNote/XML', target: invoiceId },
      { filter: 'Order/*,DespatchAdvice/*', target: orderId },
    ]);
    dispatcher.redeliver(despatch.eventId);
    await dispatcher.idle();
    expect(received(orders)).toEqual([despatch.eventId]);
    expect(dispatcher.delivery(despatch.eventId)).toMatchObject({
      state: 'succeeded',
      endpointId: orderId,
    });
  });

  it('route status events by their message document type and format', async () => {
    const status = makeEnvelope({
      action: 'messageStatusChanged',
      data: { formerValue: 'a', newValue: 'b' },
    });
    dispatcher.publish(status, makeRouting({ documentType: 'Order', format: 'XML' }));
    await dispatcher.idle();
    expect(received(orders)).toEqual([status.eventId]);
  });
});

it('sends nothing for a category without rules', async () => {
  const id = dispatcher.createEndpoint(PARTY, { name: 'e', url: invoices.url }).endpoint.id;
  dispatcher.setRules(PARTY, 'outbound', []);
  const event = makeEnvelope({ transfer: 'outbound' });
  dispatcher.publish(event, makeRouting({ category: 'outbound' }));
  await dispatcher.idle();
  expect(invoices.requests).toHaveLength(0);
  expect(dispatcher.delivery(event.eventId)?.reason).toBe(
    'not sent: the outbound category has no routing rules',
  );
  expect(dispatcher.getRouting(PARTY).inbound[0]?.target).toBe(id);
});

it('a rule targeting "not sent" drops its events, logged with the reason', async () => {
  const id = dispatcher.createEndpoint(PARTY, { name: 'inv', url: invoices.url }).endpoint.id;
  dispatcher.setRules(PARTY, 'inbound', [
    { filter: 'Invoice/*', target: id },
    { filter: 'Order/*', target: null },
  ]);
  const order = makeEnvelope();
  dispatcher.publish(order, makeRouting({ documentType: 'Order' }));
  await dispatcher.idle();
  expect(invoices.requests).toHaveLength(0);
  expect(dispatcher.delivery(order.eventId)).toMatchObject({
    state: 'exhausted',
    reason: 'not sent: inbound rule 2 targets "not sent"',
  });
});

it('status events for own changes can be switched off per rule', async () => {
  const invoiceId = dispatcher.createEndpoint(PARTY, { name: 'inv', url: invoices.url }).endpoint
    .id;
  const orderId = dispatcher.createEndpoint(PARTY, { name: 'ord', url: orders.url }).endpoint.id;
  dispatcher.setRules(PARTY, 'inbound', [
    { filter: 'Invoice/*', target: invoiceId, statusEventsForOwnChanges: false },
    { filter: 'Order/*', target: orderId },
  ]);
  const own = makeEnvelope({ action: 'messageStatusChanged' });
  const theirs = makeEnvelope({ action: 'messageStatusChanged' });
  const ownOrder = makeEnvelope({ action: 'messageStatusChanged' });
  dispatcher.publish(own, makeRouting({ ownChange: true }));
  dispatcher.publish(theirs, makeRouting({ ownChange: false }));
  dispatcher.publish(ownOrder, makeRouting({ documentType: 'Order', ownChange: true }));
  await dispatcher.idle();
  expect(received(invoices)).toEqual([theirs.eventId]);
  expect(received(orders)).toEqual([ownOrder.eventId]);
  expect(dispatcher.delivery(own.eventId)?.reason).toBe(
    'not sent: inbound rule 1 switches off status events for own changes',
  );
});

it('refuses to delete an endpoint a rule targets, and lists the log newest first', async () => {
  const id = dispatcher.createEndpoint(PARTY, { name: 'inv', url: invoices.url }).endpoint.id;
  expect(() => dispatcher.deleteEndpoint(PARTY, id)).toThrow(
    expect.objectContaining({ name: 'EndpointInUseError' }),
  );
  const first = makeEnvelope();
  const second = makeEnvelope({ messageId: first.messageId, action: 'deliveryNotified' });
  dispatcher.publish(first, makeRouting());
  dispatcher.publish(second, makeRouting());
  await dispatcher.idle();
  expect(dispatcher.deliveries(PARTY).map((d) => d.eventId)).toEqual([
    second.eventId,
    first.eventId,
  ]);
  expect(dispatcher.deliveries(PARTY, { state: 'pending' })).toEqual([]);
  expect(dispatcher.deliveries('0192:111111111')).toEqual([]);

  dispatcher.setRules(PARTY, 'inbound', []);
  dispatcher.setRules(PARTY, 'outbound', []);
  dispatcher.deleteEndpoint(PARTY, id);
  expect(dispatcher.listEndpoints(PARTY)).toEqual([]);
});
