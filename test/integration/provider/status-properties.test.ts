/** One test per row of docs/events.md#status-properties "Which properties accompany which event". */
import { describe, expect, it } from 'vitest';
import { parseValidationResults, type WebhookEnvelope } from '../../../src/protocol/index.ts';
import { change, expectProblem, SANDBOX, SUPPLIER, testProviderForEachTest } from './helpers.ts';

const provider = testProviderForEachTest();

async function act(messageId: string, action: string, body: unknown): Promise<WebhookEnvelope[]> {
  const res = await provider.admin(`/messages/${messageId}/${action}`, body);
  expect(res.status).toBe(200);
  return ((await res.json()) as { events: WebhookEnvelope[] }).events;
}

const props = (event: WebhookEnvelope | undefined) => change(event).properties ?? {};

/** The events of one change: the sandbox participant's and the demo supplier's. */
const byParty = (events: readonly WebhookEnvelope[]) => ({
  mine: events.find((e) => e.party === SANDBOX),
  supplier: events.find((e) => e.party === SUPPLIER),
});

describe('properties of status events', () => {
  it('validation warnings: pendingdelivery carries validationResults, inbound and outbound alike', async () => {
    const messageId = await provider.inbound({ warnings: true });
    const toPending = provider.eventsOf(messageId, { deliveryStatus: 'pendingdelivery' });
    expect(toPending.map((e) => e.transfer)).toEqual(['outbound', 'inbound']);
    for (const event of toPending) {
      expect(Object.keys(props(event))).toEqual(['validationResults']);
      expect(parseValidationResults(props(event).validationResults)).toEqual([
        expect.objectContaining({ type: 'warning', code: 'SIM-IL-03' }),
      ]);
    }
  });

  it('delivery failure: retrying with the first failure, then failed with the final error', async () => {
    const messageId = await provider.inbound();
    const retrying = await act(messageId, 'fail', {
      errorMessage: 'receiver AP timed out',
      finalError: 'receiver AP gone',
      afterMs: 1000,
    });
    expect(retrying.map((e) => [e.transfer, change(e).newValue, props(e)])).toEqual([
      ['outbound', 'retrying', { errorMessage: 'receiver AP timed out' }],
    ]);
    // A second failure of the same delivery sends no event.
    expect(await act(messageId, 'fail', { errorMessage: 'again', afterMs: 1000 })).toEqual([]);
    provider.clock.advance(1000);
    expect(change(provider.eventsOf(messageId).at(-1))).toEqual({
      formerValue: 'retrying',
      newValue: 'failed',
      properties: { errorMessage: 'again' },
    });
  });

  it('delivery failure codes: errorCode before errorMessage, in retrying and in failed', async () => {
    const messageId = await provider.inbound();
    const retrying = await act(messageId, 'fail', {
      errorCode: 'AS4-TIMEOUT',
      errorMessage: 'receiver AP timed out',
      finalErrorCode: 'AS4-GONE',
      finalError: 'receiver AP gone',
      afterMs: 1000,
    });
    expect(props(retrying[0])).toEqual({
      errorCode: 'AS4-TIMEOUT',
      errorMessage: 'receiver AP timed out',
    });
    expect(Object.keys(props(retrying[0]))).toEqual(['errorCode', 'errorMessage']);
    provider.clock.advance(1000);
    expect(props(provider.eventsOf(messageId).at(-1))).toEqual({
      errorCode: 'AS4-GONE',
      errorMessage: 'receiver AP gone',
    });

    const held = await provider.inbound();
    const pending = await act(held, 'pending-failure', { errorCode: 'E1', errorMessage: 'held' });
    expect(props(pending[0])).toEqual({ errorCode: 'E1', errorMessage: 'held' });
    const concluded = await act(held, 'conclude-failure', { errorCode: 'E2' });
    expect(props(concluded[0])).toEqual({ errorCode: 'E2', errorMessage: 'delivery failed' });
  });

  it("deliver confirms the sender's side only; the receiver's side waits for its own mark-as-delivered", async () => {
    const messageId = await provider.inbound();
    await act(messageId, 'fail', {});
    const events = await act(messageId, 'deliver', {});
    expect(events.map((e) => [e.transfer, change(e).formerValue, change(e).newValue])).toEqual([
      ['outbound', 'retrying', 'delivered'],
    ]);
    const inbound = await (await provider.api(`/messages/${messageId}?transfer=inbound`)).json();
    expect(inbound).toMatchObject({ status: 'pendingdelivery' });
    // The scheduled end of the retries was cancelled: nothing turns it into failed later.
    provider.clock.advance(24 * 3600_000);
    expect(provider.eventsOf(messageId).at(-1)?.eventId).toBe(events.at(-1)?.eventId);

    // The receiver's own call moves its side, as its own change.
    const res = await provider.api(`/messages/${messageId}/mark-as-delivered`, { method: 'POST' });
    expect(res.status).toBe(204);
    const last = provider.events.at(-1);
    expect(last?.envelope.transfer).toBe('inbound');
    expect(change(last?.envelope)).toEqual({
      formerValue: 'pendingdelivery',
      newValue: 'delivered',
    });
    expect(last?.routing.ownChange).toBe(true);
  });

  it('tax reporting: action first and only for the actor; jurisdiction and role for both', async () => {
    const messageId = await provider.inbound();
    const events = await act(messageId, 'tax-report', {
      jurisdiction: 'Croatia',
      status: 'electronic',
    });
    const { mine, supplier } = byParty(events);
    expect(supplier?.action).toBe('taxReportingStatusChanged');
    expect(change(supplier)).toMatchObject({ formerValue: 'none', newValue: 'electronic' });
    expect(Object.keys(props(supplier))).toEqual([
      'actionMessageId',
      'actionName',
      'jurisdiction',
      'role',
    ]);
    expect(props(supplier)).toMatchObject({
      actionName: 'RegisterFiscalEvidence',
      jurisdiction: 'Croatia',
      role: 'Supplier',
    });
    expect(props(mine)).toEqual({ jurisdiction: 'Croatia', role: 'Supplier' });
  });

  it('tax reporting failed: errorCode and errorMessage besides the action', async () => {
    const messageId = await provider.inbound();
    const events = await act(messageId, 'tax-report', {
      jurisdiction: 'Slovakia',
      status: 'failed',
      errorCode: 'SK-E042',
      errorMessage: 'Unknown VAT number',
      role: 'Customer',
    });
    const { mine, supplier } = byParty(events);
    expect(change(mine).newValue).toBe('failed');
    expect(Object.keys(props(mine))).toEqual([
      'actionMessageId',
      'actionName',
      'jurisdiction',
      'role',
      'errorCode',
      'errorMessage',
    ]);
    expect(props(mine)).toMatchObject({
      actionName: 'RegisterTaxableDelivery',
      role: 'Customer',
      errorCode: 'SK-E042',
    });
    expect(props(supplier).actionMessageId).toBeUndefined();
  });

  it('payment: the supplier reports it; paidAmount and paymentDate; no actionMessageId for the customer', async () => {
    const messageId = await provider.inbound();
    const events = await act(messageId, 'payment', {
      paidAmount: '375.00',
      paymentDate: '2026-01-20',
    });
    const { mine, supplier } = byParty(events);
    expect(mine?.action).toBe('lifecycleStatusChanged');
    expect(change(mine)).toMatchObject({ formerValue: 'none', newValue: 'paid' });
    expect(Object.keys(props(supplier)).slice(0, 2)).toEqual(['actionMessageId', 'actionName']);
    expect(props(supplier)).toMatchObject({
      actionName: 'RegisterPayment',
      role: 'Supplier',
      paidAmount: '375.00',
      paymentDate: '2026-01-20',
    });
    expect(props(mine).actionMessageId).toBeUndefined();
    expect(props(mine)).toMatchObject({ paidAmount: '375.00', paymentDate: '2026-01-20' });
  });

  it('rejection by the participant itself: its event names the action, with rejectionType and reason', async () => {
    const messageId = await provider.inbound();
    const events = await act(messageId, 'rejection', {
      rejectionType: 'MismatchAffectingTaxes',
      reason: 'wrong VAT rate',
    });
    const { mine, supplier } = byParty(events);
    expect(change(mine)).toMatchObject({ formerValue: 'none', newValue: 'rejected' });
    expect(Object.keys(props(mine)).slice(0, 2)).toEqual(['actionMessageId', 'actionName']);
    expect(props(mine)).toMatchObject({
      actionName: 'RegisterRejection',
      role: 'Customer',
      rejectionType: 'MismatchAffectingTaxes',
      reason: 'wrong VAT rate',
    });
    expect(
      provider.events.find((e) => e.envelope.eventId === mine?.eventId)?.routing.ownChange,
    ).toBe(true);
    expect(props(supplier).actionMessageId).toBeUndefined();
    // The same change again is no change: no event.
    expect(await act(messageId, 'rejection', { rejectionType: 'Other', reason: 'x' })).toEqual([]);
  });

  it('parked: messageStatusChanged with the reason', async () => {
    const messageId = await provider.inbound();
    const events = await act(messageId, 'park', {
      reason: 'held for manual review',
      transfer: 'inbound',
    });
    expect(events).toHaveLength(1);
    expect(change(events[0])).toEqual({
      formerValue: 'pendingdelivery',
      newValue: 'parked',
      properties: { reason: 'held for manual review' },
    });
  });

  it('rejects an admin body with a bad field, naming it', async () => {
    const messageId = await provider.inbound();
    const res = await provider.admin(`/messages/${messageId}/tax-report`, {
      jurisdiction: 'Norway',
      status: 'electronic',
    });
    expect(await expectProblem(res, 400)).toMatchObject({ status: 400, field: 'jurisdiction' });
  });
});
