import { describe, expect, it } from 'vitest';
import { WEBHOOK_RETRY_WINDOW_MS } from '../../../src/protocol/index.ts';
import {
  change,
  expectProblem,
  minimalInvoice,
  SANDBOX,
  summary,
  testProviderForEachTest,
} from './helpers.ts';

const provider = testProviderForEachTest();

async function submit(receiver: string): Promise<string> {
  const { messageId } = await provider.submitInvoice(minimalInvoice(receiver));
  provider.settle();
  return messageId;
}

describe('self-send', () => {
  it('produces each event twice, once outbound and once inbound', async () => {
    const messageId = await submit(SANDBOX);
    const events = provider.eventsOf(messageId);
    expect(events.every((e) => e.party === SANDBOX)).toBe(true);
    const byTransfer = (t: string) =>
      summary(events.filter((e) => e.transfer === t)).map((s) => s.slice(t.length));
    expect(byTransfer('outbound')).toEqual(byTransfer('inbound'));
    expect(byTransfer('inbound')).toEqual([
      ':created',
      ':messageStatusChanged:received->pendingdelivery',
      ':deliveryNotified',
    ]);
    expect(
      provider.events
        .filter((e) => e.envelope.messageId === messageId)
        .map((e) => e.routing.category),
    ).toEqual(events.map((e) => e.transfer));
  });

  it('answers GET /messages/:mid with the inbound side unless transfer=outbound', async () => {
    const messageId = await submit(SANDBOX);
    expect(await (await provider.api(`/messages/${messageId}`)).json()).toMatchObject({
      transfer: 'inbound',
    });
    expect(
      await (await provider.api(`/messages/${messageId}?transfer=outbound`)).json(),
    ).toMatchObject({
      transfer: 'outbound',
    });
  });

  it('mark-as-delivered delivers both sides with own-change events', async () => {
    const messageId = await submit(SANDBOX);
    const before = provider.events.length;
    expect(
      (await provider.api(`/messages/${messageId}/mark-as-delivered`, { method: 'POST' })).status,
    ).toBe(204);
    const added = provider.events.slice(before);
    expect(
      added.map((e) => [e.envelope.transfer, change(e.envelope).newValue, e.routing.ownChange]),
    ).toEqual([
      ['inbound', 'delivered', true],
      ['outbound', 'delivered', true],
    ]);
  });
});

describe('acknowledging an inbound message', () => {
  it('mark-as-delivered moves pendingdelivery to delivered once, as an own change', async () => {
    const messageId = await provider.inbound();
    expect(await (await provider.api(`/messages/${messageId}/status`)).json()).toEqual({
      status: 'pendingdelivery',
    });
    const before = provider.events.length;
    expect(
      (await provider.api(`/messages/${messageId}/mark-as-delivered`, { method: 'POST' })).status,
    ).toBe(204);
    const mine = provider.events.slice(before).filter((e) => e.envelope.party === SANDBOX);
    expect(mine).toHaveLength(1);
    expect(mine[0]?.envelope).toMatchObject({
      action: 'messageStatusChanged',
      transfer: 'inbound',
      data: { formerValue: 'pendingdelivery', newValue: 'delivered' },
    });
    expect(mine[0]?.routing.ownChange).toBe(true);
    // The sender's outbound side is confirmed, not as the sender's own change.
    const sender = provider.events.slice(before).find((e) => e.envelope.party !== SANDBOX);
    expect(sender?.envelope.transfer).toBe('outbound');
    expect(sender?.routing.ownChange).toBe(false);

    const count = provider.events.length;
    expect(
      (await provider.api(`/messages/${messageId}/mark-as-delivered`, { method: 'POST' })).status,
    ).toBe(204);
    expect(provider.events.length).toBe(count);
    const failed = await provider.api(`/messages/${messageId}/mark-as-failed`, { method: 'POST' });
    expect(failed.status).toBe(409);
  });

  it('mark-as-failed puts the reason in errorMessage and is idempotent', async () => {
    const messageId = await provider.inbound();
    const res = await provider.api(`/messages/${messageId}/mark-as-failed`, {
      method: 'POST',
      body: JSON.stringify({ reason: 'importer rejected the amounts' }),
    });
    expect(res.status).toBe(204);
    const [event] = provider.eventsOf(messageId, { party: SANDBOX }).slice(-1);
    expect(change(event)).toEqual({
      formerValue: 'pendingdelivery',
      newValue: 'failed',
      properties: { errorMessage: 'importer rejected the amounts' },
    });
    const count = provider.events.length;
    expect(
      (await provider.api(`/messages/${messageId}/mark-as-failed`, { method: 'POST' })).status,
    ).toBe(204);
    expect(provider.events.length).toBe(count);
    expect(
      (await provider.api(`/messages/${messageId}/mark-as-delivered`, { method: 'POST' })).status,
    ).toBe(409);
  });

  it('answers 404 for an unknown message or one that is not inbound for the participant', async () => {
    expect(
      (await provider.api('/messages/nope/mark-as-delivered', { method: 'POST' })).status,
    ).toBe(404);
    const outboundOnly = await submit('0192:111111111');
    const res = await provider.api(`/messages/${outboundOnly}/mark-as-delivered`, {
      method: 'POST',
    });
    await expectProblem(res, 404);
  });

  it('records every messaging API call', async () => {
    const messageId = await provider.inbound();
    await provider.api(`/messages/${messageId}/documents/core`);
    await provider.api(`/messages/${messageId}/mark-as-delivered`, { method: 'POST' });
    const res = await provider.admin(`/api-calls?messageId=${messageId}`, undefined, 'GET');
    const { items } = (await res.json()) as {
      items: { method: string; path: string; status: number }[];
    };
    expect(items.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([
      `GET /messages/${messageId}/documents/core 200`,
      `POST /messages/${messageId}/mark-as-delivered 204`,
    ]);
    expect(items.some((c) => c.path.endsWith('mark-as-failed'))).toBe(false);
  });
});

describe('delivery to a receiver the service does not know', () => {
  it('retries with "no endpoint found for the receiver" once, then fails with the final error', async () => {
    const messageId = await submit('0192:555555555');
    const events = provider.eventsOf(messageId);
    expect(summary(events)).toEqual([
      'outbound:created',
      'outbound:messageStatusChanged:received->pendingdelivery',
      'outbound:deliveryNotified',
      'outbound:messageStatusChanged:pendingdelivery->retrying',
    ]);
    expect(change(events[3]).properties).toEqual({
      errorMessage: 'no endpoint found for the receiver',
    });

    provider.clock.advance(WEBHOOK_RETRY_WINDOW_MS - 1);
    expect(provider.eventsOf(messageId)).toHaveLength(4);
    provider.clock.advance(1);
    const last = provider.eventsOf(messageId).at(-1);
    expect(change(last)).toEqual({
      formerValue: 'retrying',
      newValue: 'failed',
      properties: { errorMessage: 'no endpoint found for the receiver' },
    });
  });

  it('a manual retry of the failed message starts a new delivery with new events', async () => {
    const messageId = await submit('0192:555555555');
    provider.clock.advance(WEBHOOK_RETRY_WINDOW_MS);
    const before = provider.eventsOf(messageId).length;
    await provider.admin('/participants', {
      identifier: '0192:555555555',
      name: 'Late AS',
      countryCode: 'NO',
    });
    expect((await provider.admin(`/messages/${messageId}/retry`)).status).toBe(200);
    expect(summary(provider.eventsOf(messageId).slice(before))).toEqual([
      'outbound:messageStatusChanged:failed->pendingdelivery',
      'inbound:created',
      'inbound:messageStatusChanged:received->pendingdelivery',
      'inbound:deliveryNotified',
    ]);
  });
});

describe('manual handling of a failing delivery (pendingfailure)', () => {
  const RECEIVER = '0192:111111111';

  async function held(): Promise<string> {
    const messageId = await submit(RECEIVER);
    const res = await provider.admin(`/messages/${messageId}/pending-failure`, {
      errorMessage: 'receiver access point rejected the document',
    });
    expect(res.status).toBe(200);
    return messageId;
  }

  it('goes to pendingfailure, not final, with the failure in errorMessage', async () => {
    const messageId = await held();
    const last = provider.eventsOf(messageId, { party: SANDBOX }).at(-1);
    expect(summary(last === undefined ? [] : [last])).toEqual([
      'outbound:messageStatusChanged:pendingdelivery->pendingfailure',
    ]);
    expect(change(last).properties).toEqual({
      errorMessage: 'receiver access point rejected the document',
    });
    const res = await provider.api(`/messages/${messageId}/status?transfer=outbound`);
    expect(await res.json()).toEqual({ status: 'pendingfailure' });
  });

  it('pendingfailure -> delivered when a retry succeeds', async () => {
    const messageId = await held();
    expect((await provider.admin(`/messages/${messageId}/deliver`, {})).status).toBe(200);
    expect(summary(provider.eventsOf(messageId, { party: SANDBOX }).slice(-1))).toEqual([
      'outbound:messageStatusChanged:pendingfailure->delivered',
    ]);
  });

  it('pendingfailure -> failed when manual handling concludes and the failure stays', async () => {
    const messageId = await held();
    const res = await provider.admin(`/messages/${messageId}/conclude-failure`, {
      errorMessage: 'receiver unknown in the network',
    });
    expect(res.status).toBe(200);
    const last = provider.eventsOf(messageId, { party: SANDBOX }).at(-1);
    expect(summary(last === undefined ? [] : [last])).toEqual([
      'outbound:messageStatusChanged:pendingfailure->failed',
    ]);
    expect(change(last).properties?.errorMessage).toBe('receiver unknown in the network');
  });

  it('refuses to conclude what is not pendingfailure, or to hold a final message', async () => {
    const messageId = await submit(RECEIVER);
    expect((await provider.admin(`/messages/${messageId}/conclude-failure`, {})).status).toBe(409);
    await provider.admin(`/messages/${messageId}/deliver`, {});
    expect((await provider.admin(`/messages/${messageId}/pending-failure`, {})).status).toBe(409);
  });
});
