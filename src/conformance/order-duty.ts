/**
 * status.order (docs/consumer-duties.md#apply-status-events-in-order): status events sent newest
 * first, for two outbound invoices the consumer's participant sends.
 *
 *   1. Delivery fails, then succeeds: pendingdelivery > retrying > delivered. Every status
 *      event comes newest first, so the first names a formerValue the consumer has not seen and
 *      a GET /messages/:mid must follow.
 *   2. Parked by hand, then retried: pendingdelivery > parked > pendingdelivery. The events up
 *      to pendingdelivery come in order, then the two changes newest first. A consumer that
 *      refreshes on the first (its formerValue, parked, is news) and then applies the second
 *      (its formerValue is what the refresh stored) ends at parked; only the occurredAt it kept,
 *      its watermark, says the second is older than what it fetched.
 *
 * With --state-url the consumer's view of each message must end at the service's value. The
 * views are read at the end of the run: a consumer that applies the older change, applies it
 * within the scenarios that follow.
 */
import { randomUUID } from 'node:crypto';
import type { WebhookEnvelope } from '../protocol/index.ts';
import { sampleInvoice } from '../provider/invoice.ts';
import { DEMO_SUPPLIER } from '../provider/model/participants.ts';
import { callsLine } from './calls.ts';
import { type Pending, report } from './duty.ts';
import { describeAnswer, type Harness, isSuccess, type Sent } from './harness.ts';

interface Sequence {
  messageId: string;
  /** The events in the order they are sent. */
  sent: Sent[];
}

export async function orderDuty(h: Harness): Promise<Pending> {
  const duty = {
    id: 'status.order',
    title: 'status events out of order end in the in-order state (a missed formerValue is fetched)',
    doc: 'docs/consumer-duties.md#apply-status-events-in-order',
  };
  const failed = await outbound(h, async (messageId) => {
    await h.admin('POST', `/messages/${messageId}/fail`, {
      errorMessage: 'receiver access point timed out',
    });
    await h.admin('POST', `/messages/${messageId}/deliver`);
  });
  const parked = await outbound(h, async (messageId) => {
    await h.admin('POST', `/messages/${messageId}/park`, {
      reason: 'held by the sender',
      transfer: 'outbound',
    });
    await h.admin('POST', `/messages/${messageId}/retry`, { transfer: 'outbound' });
  });

  // 1: message events first (the consumer learns the message), then every change newest first.
  const isStatus = (e: WebhookEnvelope) => e.action === 'messageStatusChanged';
  const all = [...failed.before, ...failed.after];
  const first = await sendAll(h, [
    ...all.filter((e) => !isStatus(e)),
    ...all.filter(isStatus).reverse(),
  ]);
  // 2: everything up to pendingdelivery in order, then parked and back, newest first.
  const second = await sendAll(h, [...parked.before, ...[...parked.after].reverse()]);

  const newest = all.filter(isStatus).at(-1);
  const refreshed = await h.until(() =>
    h
      .calls(first.messageId)
      .find((c) => c.method === 'GET' && c.path === `/messages/${first.messageId}`),
  );
  const refreshLine = `the newest change (${newest === undefined ? '?' : summary(newest)}) arrived first: ${refreshed === undefined ? 'no' : 'a'} GET /messages/${first.messageId} followed`;

  return {
    async finalize() {
      const [one, two] = await Promise.all([judge(h, first), judge(h, second)]);
      return report(duty, one.ok && two.ok && refreshed !== undefined, [
        `1. message ${first.messageId}: delivery failed, then succeeded; its status events newest first`,
        ...one.evidence,
        refreshLine,
        `2. message ${second.messageId}: parked, then retried; its last two status events newest first`,
        ...two.evidence,
      ]);
    },
  };
}

/** An outbound invoice, and its events before and after `change` (none sent yet). */
async function outbound(
  h: Harness,
  change: (messageId: string) => Promise<void>,
): Promise<{ messageId: string; before: WebhookEnvelope[]; after: WebhookEnvelope[] }> {
  return h.hidden(async () => {
    const { messageId } = await h.admin<{ messageId: string }>(
      'POST',
      '/messages/outbound',
      outboundInvoice(h.party),
    );
    await h.until(() => h.events(messageId).some((e) => e.action === 'deliveryNotified'), 5_000);
    const before = h.events(messageId).length;
    await change(messageId);
    const events = h.events(messageId);
    return { messageId, before: events.slice(0, before), after: events.slice(before) };
  });
}

async function sendAll(h: Harness, events: WebhookEnvelope[]): Promise<Sequence> {
  const messageId = events[0]?.messageId ?? '';
  const sent: Sent[] = [];
  for (const event of events) {
    sent.push(await h.send(h.body(event.eventId), { what: summary(event) }));
  }
  return { messageId, sent };
}

/** The answers, and with --state-url whether the consumer's view ended at the service's value. */
async function judge(h: Harness, sequence: Sequence): Promise<{ ok: boolean; evidence: string[] }> {
  const { messageId } = sequence;
  const answers = await Promise.all(sequence.sent.map((s) => s.answer));
  const evidence = [...answers.map(describeAnswer), callsLine(h.calls(messageId))];
  let stateOk = true;
  if (h.options.stateUrl === undefined) {
    evidence.push("the consumer's view: not read (no --state-url)");
  } else {
    const expected = h.provider.provider.model.messages.get(messageId).sides.outbound?.status;
    const seen = await readState(h, messageId, expected).catch((error: unknown) => String(error));
    const value = typeof seen === 'string' ? seen : seen?.outbound?.deliveryStatus;
    stateOk = value === expected;
    evidence.push(
      `the consumer's view (${h.options.stateUrl}): outbound delivery status ${String(value)}; the service's: ${expected}`,
    );
  }
  return { ok: answers.every(isSuccess) && stateOk, evidence };
}

interface ConsumerView {
  outbound?: { deliveryStatus?: string };
}

/** The consumer's view, asked until it shows `expected` or the timeout passes. */
async function readState(
  h: Harness,
  messageId: string,
  expected: string | undefined,
): Promise<ConsumerView> {
  const url = (h.options.stateUrl ?? '').replaceAll('{messageId}', encodeURIComponent(messageId));
  let last: ConsumerView | undefined;
  const deadline = Date.now() + h.options.timeoutMs;
  for (;;) {
    const res = await fetch(url, {
      headers:
        h.options.stateToken === undefined
          ? {}
          : { authorization: `Bearer ${h.options.stateToken}` },
    });
    last = res.ok ? ((await res.json()) as ConsumerView) : undefined;
    if (!res.ok) await res.arrayBuffer();
    if (last?.outbound?.deliveryStatus === expected || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return last ?? {};
}

function summary(event: WebhookEnvelope): string {
  const data = event.data as { formerValue?: string; newValue?: string };
  return data.newValue === undefined
    ? `${event.transfer} ${event.action}`
    : `${event.transfer} ${event.action} ${data.formerValue} -> ${data.newValue}`;
}

/** An invoice from the consumer's participant to the simulator's demo supplier. */
function outboundInvoice(party: string) {
  return sampleInvoice({
    supplier: { identifier: party, name: 'Conformance Sender', countryCode: 'NO' },
    customer: DEMO_SUPPLIER,
    invoiceNo: `CONF-${randomUUID().slice(0, 8)}`,
    issueDate: new Date().toISOString(),
  });
}
