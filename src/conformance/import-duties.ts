/**
 * The duties of an inbound message (docs/consumer-duties.md): fetch and import, then
 * acknowledge; a duplicate changes nothing; a lost reply to the acknowledgement still ends in
 * mark-as-delivered; mark-as-failed only for a permanent import failure, never for a transient
 * API failure. Evidence is what the consumer did at the messaging API, read from the
 * simulator's call log.
 */
import type { WebhookEnvelope } from '../protocol/index.ts';
import {
  acknowledged,
  callsLine,
  importedThenAcknowledged,
  isCore,
  isDelivered,
  isFailed,
  isTransaction,
} from './calls.ts';
import { type DutyReport, decided, type Pending, report } from './duty.ts';
import { describeAnswer, type Harness, isSuccess, type Sent } from './harness.ts';

const DOC = 'docs/consumer-duties.md';

/** A counterparty's invoice whose events wait, unsent, for `h.release`. */
async function waitingInbound(h: Harness): Promise<{
  messageId: string;
  events: WebhookEnvelope[];
  notified: WebhookEnvelope;
}> {
  return h.hidden(async () => {
    const messageId = await h.inbound();
    const events = h.events(messageId).filter((e) => e.transfer === 'inbound');
    const notified = events.find((e) => e.action === 'deliveryNotified');
    if (notified === undefined) throw new Error('the simulator sent no deliveryNotified');
    return { messageId, events, notified };
  });
}

export async function importDuty(h: Harness): Promise<{ report: DutyReport; messageId: string }> {
  const duty = {
    id: 'import.acknowledge',
    title: 'deliveryNotified: core document and transaction JSON fetched, then mark-as-delivered',
    doc: `${DOC}#import-then-acknowledge`,
  };
  const messageId = await h.inbound();
  const calls = await acknowledged(h, messageId);
  return {
    messageId,
    report: report(duty, importedThenAcknowledged(calls), [
      `sent: an invoice from a counterparty, message ${messageId} (created, messageStatusChanged, deliveryNotified)`,
      callsLine(calls),
    ]),
  };
}

/** Sends the imported message's created and deliveryNotified again, twice; judged at the end. */
export async function duplicatesDuty(h: Harness, messageId: string): Promise<Pending> {
  const duty = {
    id: 'duplicates',
    title:
      'a duplicate (same eventId) changes nothing: no second import, no second acknowledgement',
    doc: `${DOC}#ignore-duplicates`,
  };
  const originals = h
    .events(messageId)
    .filter(
      (e) =>
        e.transfer === 'inbound' && (e.action === 'created' || e.action === 'deliveryNotified'),
    );
  const sent: Sent[] = [];
  for (let round = 1; round <= 2; round++) {
    for (const event of originals) {
      sent.push(
        await h.send(h.body(event.eventId), { what: `${event.action} ${event.eventId} again` }),
      );
    }
  }
  return {
    async finalize() {
      const answers = await Promise.all(sent.map((s) => s.answer));
      const calls = h.calls(messageId);
      const counts = {
        core: calls.filter(isCore).length,
        transaction: calls.filter(isTransaction).length,
        delivered: calls.filter(isDelivered).length,
      };
      return report(
        duty,
        answers.every(isSuccess) &&
          counts.core === 1 &&
          counts.transaction === 1 &&
          counts.delivered === 1,
        [
          ...answers.map(describeAnswer),
          `over the whole run: core document fetched ${counts.core}x, transaction JSON ${counts.transaction}x, mark-as-delivered ${counts.delivered}x (each once is right)`,
        ],
      );
    },
  };
}

/**
 * The service loses the reply to an acknowledgement: the first mark-as-delivered of an inbound
 * message is answered 503, and once it has been, the message's deliveryNotified comes again
 * (same eventId, same bytes, as at-least-once delivery allows). Whatever the consumer makes of
 * the repeat (a duplicate it ignores, or an import that meets its own earlier one and must hear
 * "already imported"), the message ends acknowledged and is never marked failed: its documents
 * were taken. Judged at the end of the run, so that a second import has had time to show.
 */
export async function lostAcknowledgementDuty(h: Harness): Promise<Pending> {
  const duty = {
    id: 'import.lost-acknowledgement',
    title:
      'a lost reply to mark-as-delivered, then the deliveryNotified again: acknowledged, never marked failed',
    doc: `${DOC}#ignore-duplicates`,
  };
  const { messageId, events, notified } = await waitingInbound(h);
  h.provider.provider.faults.add({
    count: 1,
    mode: '503',
    pathPrefix: `/messages/${messageId}/mark-as-delivered`,
  });
  h.release(events.map((e) => e.eventId));
  const sentLine = `sent: an invoice from a counterparty, message ${messageId}; its first mark-as-delivered answered 503, then its deliveryNotified ${notified.eventId} again`;
  const lost = await h.until(() =>
    h.calls(messageId).some((c) => isDelivered(c) && c.status === 503),
  );
  if (lost === undefined) {
    return decided(
      report(duty, false, [
        sentLine,
        `no mark-as-delivered within ${h.options.timeoutMs} ms, so the deliveryNotified was not sent again`,
        callsLine(h.calls(messageId)),
      ]),
    );
  }
  const again = await h.send(h.body(notified.eventId), {
    what: `deliveryNotified ${notified.eventId} again, after the 503`,
  });
  // The consumer's own retry of the call, or its handling of the repeat, within the timeout;
  // a mark-as-failed decides the verdict at once.
  await h.until(() =>
    h.calls(messageId).some((c) => (isDelivered(c) && c.status === 204) || isFailed(c)),
  );
  return {
    async finalize() {
      const answer = await again.answer;
      const calls = h.calls(messageId);
      const status = h.provider.provider.model.messages.get(messageId).sides.inbound?.status;
      return report(
        duty,
        calls.some((c) => isDelivered(c) && c.status === 204) && !calls.some(isFailed),
        [
          sentLine,
          describeAnswer(answer),
          callsLine(calls),
          `the message at the service: ${status ?? 'unknown'}`,
        ],
      );
    },
  };
}

export async function permanentFailureDuty(h: Harness): Promise<DutyReport> {
  const duty = {
    id: 'import.permanent-failure',
    title: 'a permanent import failure leads to mark-as-failed, never mark-as-delivered',
    doc: `${DOC}#mark-as-failed-only-for-permanent-failures`,
  };
  const invoiceNo = h.options.rejectInvoiceNo;
  if (invoiceNo === undefined) return report(duty, 'not checked', ['no --reject-invoice-no given']);
  const messageId = await h.inbound({ invoiceNo });
  const calls = await acknowledged(h, messageId);
  return report(
    duty,
    calls.some((c) => isFailed(c) && c.status === 204) && !calls.some(isDelivered),
    [`sent: invoice ${invoiceNo}, message ${messageId}`, callsLine(calls)],
  );
}

/** 503, 500 and 429 on the fetches of one message: retried, acknowledged, never marked failed. */
export async function transientFailureDuty(h: Harness): Promise<DutyReport> {
  const duty = {
    id: 'import.transient-failure',
    title: 'transient API failures (503, 500, 429) are retried and never lead to mark-as-failed',
    doc: `${DOC}#mark-as-failed-only-for-permanent-failures`,
  };
  const { messageId, events } = await waitingInbound(h);
  const faults = h.provider.provider.faults;
  faults.add({ count: 2, mode: '503', pathPrefix: `/messages/${messageId}/documents/core` });
  faults.add({ count: 1, mode: '500', pathPrefix: `/messages/${messageId}/documents/core` });
  faults.add({ count: 1, mode: '429', retryAfterSeconds: 1, pathPrefix: '/transactions/' });
  h.release(events.map((e) => e.eventId));
  const calls = await acknowledged(h, messageId);
  faults.clear();
  const failedCalls = calls.filter((c) => (c.status ?? 0) >= 500 || c.status === 429);
  return report(duty, importedThenAcknowledged(calls) && failedCalls.length >= 3, [
    `sent: message ${messageId}; its core document answered 503, 503, 500, its JSON 429 first`,
    callsLine(calls),
  ]);
}
