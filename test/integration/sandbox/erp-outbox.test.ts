/**
 * The ERP side of submissions that go out once (docs/submissions.md): the ERP stand-in sends
 * an invoice through the consumer (its POST /outgoing-invoices forwards to POST
 * /admin/submissions), and hears back, through the real example status sink (erp-http), what
 * became of it: the submission notice with the message id, then that message's status changes,
 * each once and in order, whatever happened to the submit's reply, or to the consumer's answer
 * to the ERP (which the stand-in sends again: the invoice number makes that safe).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createErpHttpSink } from '../../../src/sinks/erp-http.ts';
import {
  type ErpOutgoingInvoice,
  type ErpStandin,
  startErpStandin,
} from '../../support/erp-standin.ts';
import { freePort } from '../../support/free-port.ts';
import { type RunningProxy, startProxy } from '../../support/http-proxy.ts';
import {
  eventually,
  SANDBOX_SUBMIT_TOKEN,
  type Sandbox,
  startSandbox,
} from '../../support/sandbox.ts';
import { exampleInvoice, submitFault } from '../../support/submissions.ts';

const ERP_TOKEN = 'erp-outbox-token-0b9c4d';

let sandbox: Sandbox | undefined;
let erp: ErpStandin | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await sandbox?.stop();
  await erp?.close();
  sandbox = undefined;
  erp = undefined;
  proxy = undefined;
});

/**
 * The sandbox, its status sink posting to the stand-in, and the stand-in sending through the
 * consumer. Each needs the other's URL: the stand-in's port is chosen first and the stand-in
 * starts on it once the consumer listens (a notice sent before is retried by the sink).
 */
async function start(
  consumerUrl?: (s: Sandbox) => Promise<string>,
): Promise<{ s: Sandbox; erp: ErpStandin }> {
  const port = await freePort();
  const sink = createErpHttpSink({
    SINK_ERP_URL: `http://127.0.0.1:${port}`,
    SINK_ERP_TOKEN: ERP_TOKEN,
  });
  sandbox = await startSandbox({ sink });
  erp = await startErpStandin({
    port,
    token: ERP_TOKEN,
    consumerUrl: consumerUrl === undefined ? sandbox.consumer.url : await consumerUrl(sandbox),
    // The ERP's token: submissions only (ADMIN_SUBMIT_TOKEN), never the operator's.
    consumerToken: SANDBOX_SUBMIT_TOKEN,
  });
  return { s: sandbox, erp };
}

/** POST /outgoing-invoices of the stand-in, as the ERP's own code would call it. */
async function sendFromErp(standin: ErpStandin, body: unknown) {
  const res = await fetch(`${standin.url}/outgoing-invoices`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ERP_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as { state: string; messageId: string | null },
  };
}

/** GET /outgoing-invoices of the stand-in: one invoice, once `done` says it heard enough. */
function heard(
  standin: ErpStandin,
  invoiceNo: string,
  done: (invoice: ErpOutgoingInvoice) => boolean,
  what: string,
  ms?: number,
): Promise<ErpOutgoingInvoice> {
  return eventually(
    async () => {
      const res = await fetch(`${standin.url}/outgoing-invoices`, {
        headers: { authorization: `Bearer ${ERP_TOKEN}` },
      });
      const invoice = ((await res.json()) as ErpOutgoingInvoice[]).find(
        (i) => i.invoiceNo === invoiceNo,
      );
      return invoice !== undefined && done(invoice) ? invoice : undefined;
    },
    what,
    ms,
  );
}

const changes = (invoice: ErpOutgoingInvoice, kind: string) =>
  invoice.statusChanges.filter((c) => c.notice.kind === kind).map((c) => c.notice.newValue);

describe('the ERP sends invoices through the consumer', () => {
  it('hears its invoice submitted with the message id, then delivered and paid, each once and in order', async () => {
    const { s, erp: standin } = await start();
    const body = await exampleInvoice(s.provider.url, 'ERP-OUT-1');
    const sent = await sendFromErp(standin, body);
    expect(sent.status).toBe(202);
    expect(sent.body.state).toBe('submitted');
    const messageId = sent.body.messageId as string;

    // Validation passes on the service's clock, then the receiver takes it and pays.
    await heard(
      standin,
      'ERP-OUT-1',
      (i) => i.statusChanges.some((c) => c.notice.kind === 'lifecycle'),
      'the first lifecycle status (validation passed)',
    );
    await s.admin('POST', `/messages/${messageId}/deliver`);
    await s.admin('POST', `/messages/${messageId}/payment`, {
      paidAmount: '375.00',
      paymentDate: '2026-11-20',
    });
    const invoice = await heard(
      standin,
      'ERP-OUT-1',
      (i) =>
        changes(i, 'lifecycle').includes('paid') && changes(i, 'delivery').includes('delivered'),
      'the delivery and the payment',
    );

    expect(invoice).toMatchObject({
      invoiceNo: 'ERP-OUT-1',
      consumerStatus: 202,
      state: 'submitted',
      messageId,
      submission: {
        id: 'submission:ERP-OUT-1',
        kind: 'submission',
        messageId,
        newValue: 'submitted',
        properties: { resolvedBy: 'reply' },
      },
    });
    // The submission notice came first of all this invoice's notices.
    const all = standin.statusChanges();
    const first = all.findIndex((c) => c.notice.messageId === messageId);
    expect(all[first]?.idempotencyKey).toBe('submission:ERP-OUT-1');
    // Each change once, in the service's order.
    const keys = invoice.statusChanges.map((c) => c.idempotencyKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(changes(invoice, 'delivery').at(-1)).toBe('delivered');
    expect(new Set(changes(invoice, 'delivery')).size).toBe(changes(invoice, 'delivery').length);
    expect(changes(invoice, 'lifecycle')).toEqual(['none', 'paid']);
    const paid = invoice.statusChanges.find((c) => c.notice.newValue === 'paid');
    expect(paid?.notice).toMatchObject({
      formerValue: 'none',
      properties: { paidAmount: '375.00' },
    });

    // Sent again (the ERP's own retry, the same body): the same message, no second invoice.
    const again = await sendFromErp(standin, body);
    expect(again).toMatchObject({ status: 200, body: { messageId } });
  });

  it('hears that an invoice failed validation, with the error code and the findings', async () => {
    const { s, erp: standin } = await start();
    const body = await exampleInvoice(s.provider.url, 'ERP-OUT-2');
    delete body.invoice.currencyCode;
    const sent = await sendFromErp(standin, body);
    expect(sent.body.state).toBe('submitted');
    const invoice = await heard(
      standin,
      'ERP-OUT-2',
      (i) => changes(i, 'delivery').includes('failed'),
      'the validation failure',
    );
    const failed = invoice.statusChanges.find((c) => c.notice.newValue === 'failed');
    expect(failed?.notice).toMatchObject({
      kind: 'delivery',
      transfer: 'outbound',
      messageId: sent.body.messageId,
      properties: { errorCode: 'BR-05' },
    });
    const results = failed?.notice.validationResults as Array<Record<string, unknown>>;
    expect(results[0]).toMatchObject({ type: 'error', code: 'BR-05' });
  });

  it('after a lost submit reply, the service holds one message and the ERP hears one submission', async () => {
    const { s, erp: standin } = await start();
    await submitFault(s, 'lose-reply', 1);
    await sendFromErp(standin, await exampleInvoice(s.provider.url, 'ERP-OUT-3'));
    const invoice = await heard(
      standin,
      'ERP-OUT-3',
      (i) => i.submission !== null,
      'the submission notice',
      // The created webhook settles it in a moment; a lookup would wait its 10 s delay first.
      20_000,
    );
    const { items } = await s.api<{ items: { uniqueId: string }[] }>(
      '/messages?transfer=outbound&documentNo=ERP-OUT-3',
    );
    expect(items.map((item) => item.uniqueId)).toEqual([invoice.messageId]);
    expect(invoice.submission).toMatchObject({
      newValue: 'submitted',
      messageId: items[0]?.uniqueId,
    });
    expect(
      standin.statusChanges().filter((c) => c.idempotencyKey === 'submission:ERP-OUT-3'),
    ).toHaveLength(1);
  });

  it("sends an invoice again when a gateway lost the consumer's answer: one message, the same id", async () => {
    // A gateway in front of the consumer: the first POST reaches the consumer, which stores
    // and submits the invoice, but the ERP gets a 502 instead of the answer.
    let posts = 0;
    const { s, erp: standin } = await start(async (s) => {
      proxy = await startProxy({
        target: s.consumer.url,
        async before(req) {
          if (req.method !== 'POST') return undefined;
          posts += 1;
          if (posts > 1) return undefined;
          await fetch(`${s.consumer.url}${req.url}`, {
            method: 'POST',
            headers: req.headers,
            body: new Uint8Array(req.body),
          }).then((res) => res.arrayBuffer());
          return 502;
        },
      });
      return proxy.url;
    });
    const sent = await sendFromErp(standin, await exampleInvoice(s.provider.url, 'ERP-OUT-4'));
    expect(posts).toBe(2);
    expect(sent.status).toBe(200);
    expect(sent.body.state).toBe('submitted');
    const { items } = await s.api<{ items: { uniqueId: string }[] }>(
      '/messages?transfer=outbound&documentNo=ERP-OUT-4',
    );
    expect(items.map((item) => item.uniqueId)).toEqual([sent.body.messageId]);
    const invoice = await heard(
      standin,
      'ERP-OUT-4',
      (i) => i.submission !== null,
      'the submission',
    );
    expect(invoice).toMatchObject({ consumerStatus: 200, messageId: sent.body.messageId });
  });
});
