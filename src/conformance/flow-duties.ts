/**
 * The duties that play whole scenarios (docs/consumer-duties.md): importing and
 * acknowledging, duplicates, status events out of order, test events and unknown actions,
 * permanent and transient failures, reconciliation. Evidence is what the consumer did at the
 * messaging API, read from the simulator's call log.
 */
import { exec } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { WebhookEnvelope } from '../protocol/index.ts';
import type { ApiCall } from '../provider/api/call-log.ts';
import { sampleInvoice } from '../provider/invoice.ts';
import { DEMO_SUPPLIER } from '../provider/model/participants.ts';
import { type DutyReport, report } from './duty.ts';
import { type Answer, describeAnswer, describeCall, type Harness, isSuccess } from './harness.ts';
import type { Pending } from './signature-duties.ts';

const DOC = 'docs/consumer-duties.md';
const run = promisify(exec);

const isCore = (c: ApiCall) => c.method === 'GET' && c.path.endsWith('/documents/core');
const isTransaction = (c: ApiCall) => c.method === 'GET' && c.path.startsWith('/transactions/');
const isDelivered = (c: ApiCall) => c.method === 'POST' && c.path.endsWith('/mark-as-delivered');
const isFailed = (c: ApiCall) => c.method === 'POST' && c.path.endsWith('/mark-as-failed');
const isFetch = (c: ApiCall) => isCore(c) || isTransaction(c);
const callsLine = (calls: ApiCall[]) =>
  `API calls: ${calls.length === 0 ? 'none' : calls.map(describeCall).join('; ')}`;

/** Waits until the consumer acknowledged the message either way; its calls then. */
async function acknowledged(h: Harness, messageId: string): Promise<ApiCall[]> {
  await h.until(() =>
    h.calls(messageId).some((c) => (isDelivered(c) || isFailed(c)) && c.status !== null),
  );
  return h.calls(messageId);
}

/**
 * Fetches of the core document and the JSON answered before mark-as-delivered arrived, and
 * nothing marked failed: the order a consumer that acknowledges only what it stored shows.
 */
function importedThenAcknowledged(calls: ApiCall[]): boolean {
  const ack = calls.find((c) => isDelivered(c) && c.status === 204);
  if (ack === undefined || calls.some(isFailed)) return false;
  const before = (c: ApiCall) =>
    c.status === 200 && c.answeredAt !== undefined && c.answeredAt <= ack.at;
  return (
    calls.some((c) => isCore(c) && before(c)) && calls.some((c) => isTransaction(c) && before(c))
  );
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
  const answers: Answer[] = [];
  for (let round = 1; round <= 2; round++) {
    for (const event of originals) {
      answers.push(
        await h.post(h.body(event.eventId), { what: `${event.action} ${event.eventId} again` }),
      );
    }
  }
  return {
    finalize() {
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
 * An outbound invoice whose delivery first fails, then succeeds; its status events are sent
 * newest first. The newest names a formerValue the consumer has not seen, so it must fetch
 * GET /messages/:mid; the older ones are stale. With --state-url the consumer's view must end
 * where the service is.
 */
export async function orderDuty(h: Harness): Promise<DutyReport> {
  const duty = {
    id: 'status.order',
    title: 'status events out of order end in the in-order state (a missed formerValue is fetched)',
    doc: `${DOC}#apply-status-events-in-order`,
  };
  const { messageId, events } = await h.hidden(async () => {
    const { messageId } = await h.admin<{ messageId: string }>(
      'POST',
      '/messages/outbound',
      outboundInvoice(h.party),
    );
    await h.until(() => h.events(messageId).some((e) => e.action === 'deliveryNotified'), 5_000);
    await h.admin('POST', `/messages/${messageId}/fail`, {
      errorMessage: 'receiver access point timed out',
    });
    await h.admin('POST', `/messages/${messageId}/deliver`);
    return { messageId, events: h.events(messageId) };
  });
  const status = events.filter((e) => e.action === 'messageStatusChanged');
  const message = events.filter((e) => e.action !== 'messageStatusChanged');
  // Message events first (the consumer learns the message), then the changes newest first.
  const order: WebhookEnvelope[] = [...message, ...[...status].reverse()];
  const answers: Answer[] = [];
  for (const event of order) {
    answers.push(await h.post(h.body(event.eventId), { what: summary(event) }));
  }
  const newest = status.at(-1);
  const refreshed = await h.until(() =>
    h.calls(messageId).find((c) => c.method === 'GET' && c.path === `/messages/${messageId}`),
  );
  const evidence = [...answers.map(describeAnswer), callsLine(h.calls(messageId))];
  let stateOk: boolean | undefined;
  if (h.options.stateUrl !== undefined) {
    const expected = h.provider.provider.model.messages.get(messageId).sides.outbound?.status;
    const seen = await readState(h, messageId).catch((error: unknown) => String(error));
    const value = typeof seen === 'string' ? seen : seen?.outbound?.deliveryStatus;
    stateOk = value === expected;
    evidence.push(
      `the consumer's view (${h.options.stateUrl}): outbound delivery status ${String(value)}; the service's: ${expected}`,
    );
  } else {
    evidence.push("the consumer's view: not read (no --state-url)");
  }
  evidence.push(
    `the newest change (${newest === undefined ? '?' : summary(newest)}) arrived first: ${refreshed === undefined ? 'no' : 'a'} GET /messages/${messageId} followed`,
  );
  return report(
    duty,
    answers.every(isSuccess) && refreshed !== undefined && stateOk !== false,
    evidence,
  );
}

async function readState(
  h: Harness,
  messageId: string,
): Promise<{ outbound?: { deliveryStatus?: string } }> {
  const url = (h.options.stateUrl ?? '').replaceAll('{messageId}', encodeURIComponent(messageId));
  // The view settles once the refresh is stored: ask until it stops changing or time is up.
  let last: unknown;
  const deadline = Date.now() + h.options.timeoutMs;
  for (;;) {
    const res = await fetch(url, {
      headers:
        h.options.stateToken === undefined
          ? {}
          : { authorization: `Bearer ${h.options.stateToken}` },
    });
    last = res.ok ? await res.json() : undefined;
    const value = (last as { outbound?: { deliveryStatus?: string } } | undefined)?.outbound
      ?.deliveryStatus;
    if (value === 'delivered' || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return (last ?? {}) as { outbound?: { deliveryStatus?: string } };
}

/**
 * A test event and an event with an unknown action about an inbound message that is waiting
 * to be fetched, and a status event with a property name nobody knows: answered 2xx, and the
 * message is not fetched because of them (judged at the end, before reconciliation).
 */
export async function skipDuties(h: Harness): Promise<Pending[]> {
  const { messageId, events } = await h.hidden(async () => {
    const messageId = await h.inbound();
    return { messageId, events: h.events(messageId).filter((e) => e.transfer === 'inbound') };
  });
  const notified = events.find((e) => e.action === 'deliveryNotified');
  const changed = events.find((e) => e.action === 'messageStatusChanged');
  if (notified === undefined || changed === undefined)
    throw new Error('the simulator sent no deliveryNotified');
  const testEvent = { ...notified, eventId: randomUUID(), test: true };
  const unknown = { ...notified, eventId: randomUUID(), action: 'documentsAmended' };
  const data = changed.data as {
    formerValue: string;
    newValue: string;
    properties?: Record<string, string>;
  };
  const futureProperty = {
    ...changed,
    data: { ...data, properties: { ...data.properties, conformanceFutureProperty: 'ignore me' } },
  };
  const testAnswer = await h.post(JSON.stringify(testEvent), {
    what: `test event (test: true) deliveryNotified for waiting message ${messageId}`,
  });
  const unknownAnswer = await h.post(JSON.stringify(unknown), {
    what: `unknown action "documentsAmended" for waiting message ${messageId}`,
  });
  const propertyAnswer = await h.post(JSON.stringify(futureProperty), {
    what: 'messageStatusChanged with an unknown property name',
  });
  const fetched = () =>
    h.calls(messageId).filter((c) => isFetch(c) || isDelivered(c) || isFailed(c));
  return [
    {
      finalize: () =>
        report(
          {
            id: 'test-events',
            title: 'a test event causes no import',
            doc: `${DOC}#skip-test-events-and-unknown-actions`,
          },
          isSuccess(testAnswer) && fetched().length === 0,
          [describeAnswer(testAnswer), callsLine(fetched())],
        ),
    },
    {
      finalize: () =>
        report(
          {
            id: 'unknown-actions',
            title: 'unknown actions and property names are answered 2xx and cause no import',
            doc: `${DOC}#skip-test-events-and-unknown-actions`,
          },
          isSuccess(unknownAnswer) && isSuccess(propertyAnswer) && fetched().length === 0,
          [describeAnswer(unknownAnswer), describeAnswer(propertyAnswer), callsLine(fetched())],
        ),
    },
  ];
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
  const { messageId, eventIds } = await h.hidden(async () => {
    const messageId = await h.inbound();
    return {
      messageId,
      eventIds: h
        .events(messageId)
        .filter((e) => e.transfer === 'inbound')
        .map((e) => e.eventId),
    };
  });
  const faults = h.provider.provider.faults;
  faults.add({ count: 2, mode: '503', pathPrefix: `/messages/${messageId}/documents/core` });
  faults.add({ count: 1, mode: '500', pathPrefix: `/messages/${messageId}/documents/core` });
  faults.add({ count: 1, mode: '429', retryAfterSeconds: 1, pathPrefix: '/transactions/' });
  h.release(eventIds);
  const calls = await acknowledged(h, messageId);
  faults.clear();
  const failedCalls = calls.filter((c) => (c.status ?? 0) >= 500 || c.status === 429);
  return report(duty, importedThenAcknowledged(calls) && failedCalls.length >= 3, [
    `sent: message ${messageId}; its core document answered 503, 503, 500, its JSON 429 first`,
    callsLine(calls),
  ]);
}

export async function reconcileDuty(
  h: Harness,
  reconcile?: () => Promise<string>,
): Promise<DutyReport> {
  const duty = {
    id: 'reconciliation',
    title: 'a message never notified is found by reconciliation, imported and acknowledged',
    doc: `${DOC}#reconcile`,
  };
  const command = h.options.reconcileCommand;
  const trigger =
    reconcile ??
    (command === undefined
      ? undefined
      : async () => (await run(command, { timeout: h.options.timeoutMs * 3 })).stdout);
  if (trigger === undefined) {
    return report(duty, 'not checked', ['no --reconcile-command given']);
  }
  const messageId = await h.hidden(() => h.inbound());
  const started = h.allCalls().length;
  let outcome: string;
  try {
    const stdout = await trigger();
    outcome = `ok${stdout.trim() === '' ? '' : `: ${stdout.trim().split('\n').at(-1)}`}`;
  } catch (error) {
    outcome = `failed: ${(error as { code?: unknown }).code ?? ''} ${String((error as Error).message).split('\n')[0]}`;
  }
  const calls = await acknowledged(h, messageId);
  const listed = h
    .allCalls()
    .slice(started)
    .some((c) => c.method === 'GET' && c.path === '/messages');
  return report(duty, listed && importedThenAcknowledged(calls), [
    `sent: nothing; message ${messageId} waits at the service, pendingdelivery`,
    `ran: ${command ?? 'the reconciliation'} -> ${outcome}`,
    `GET /messages (the pending list) called: ${listed ? 'yes' : 'no'}`,
    callsLine(calls),
  ]);
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
