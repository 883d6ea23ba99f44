/**
 * Submissions that go out once (docs/submissions.md), against the simulator: the ERP sends an
 * invoice through the consumer's POST /admin/submissions, and whatever happens to the submit's
 * reply (lost after the service acted, a connection cut before it did, the service down), the
 * service ends up with one message of that invoice, and the status sink hears its message id
 * and each status it goes through once.
 */
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  eventually,
  SANDBOX_ADMIN_TOKEN,
  type Sandbox,
  startSandboxForTest,
} from '../../support/sandbox.ts';
import {
  exampleInvoice,
  postSubmission,
  recordingSink,
  type SubmissionView,
  submitFault,
} from '../../support/submissions.ts';

const send = (s: Sandbox, body: unknown) =>
  postSubmission(s.consumer.url, body, SANDBOX_ADMIN_TOKEN);

async function submission(s: Sandbox, invoiceNo: string): Promise<SubmissionView> {
  const res = await request(
    `${s.consumer.url}/admin/submissions/${encodeURIComponent(invoiceNo)}`,
    { headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` } },
  );
  return (await res.body.json()) as SubmissionView;
}

/** What the service holds: its outbound messages of that invoice number, and the submits it took. */
async function serviceSide(s: Sandbox, invoiceNo: string) {
  const { items } = await s.api<{ items: { uniqueId: string; documentNo: string }[] }>(
    '/messages?transfer=outbound&limit=1000',
  );
  const calls = await s.admin<{ items: { method: string; path: string }[] }>('GET', '/api-calls');
  return {
    messages: items.filter((item) => item.documentNo === invoiceNo).map((item) => item.uniqueId),
    submits: calls.items.filter((call) => call.path === '/transactions/submit-invoice').length,
  };
}

const settled = (s: Sandbox, invoiceNo: string) =>
  eventually(async () => {
    const view = await submission(s, invoiceNo);
    return view.state === 'submitted' || view.state === 'refused' ? view : undefined;
  }, `invoice ${invoiceNo} to settle`);

describe('submissions that go out once', () => {
  it('submits an invoice once, answers a repeat with the same message, and refuses its number with another body', async () => {
    const recorder = recordingSink();
    const s = await startSandboxForTest({ sink: recorder.sink });
    const body = await exampleInvoice(s.provider.url, 'ERP-1001');

    const first = await send(s, body);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ invoiceNo: 'ERP-1001', state: 'submitted', attempts: 1 });
    expect(first.body.resolvedBy).toBe('reply');
    const again = await send(s, body);
    expect(again.status).toBe(200);
    expect(again.body.messageId).toBe(first.body.messageId);
    const other = await send(s, { ...body, invoice: { ...body.invoice, note: 'changed' } });
    expect(other.status).toBe(409);

    expect(await serviceSide(s, 'ERP-1001')).toEqual({
      messages: [first.body.messageId],
      submits: 1,
    });
    // The receiver takes it and pays: the sink hears the message id, then each status once.
    const messageId = first.body.messageId as string;
    await eventually(
      async () => (await submission(s, 'ERP-1001')).message?.validationStatus === 'approved',
      'validation to pass',
    );
    await s.admin('POST', `/messages/${messageId}/deliver`);
    await s.admin('POST', `/messages/${messageId}/payment`, {
      paidAmount: '375.00',
      paymentDate: '2026-11-20',
    });
    await eventually(
      async () =>
        recorder.taken.some(
          (n) => n.messageId === messageId && n.kind === 'lifecycle' && n.newValue === 'paid',
        ),
      'the payment to reach the sink',
    );
    const own = recorder.taken.filter((n) => n.messageId === messageId);
    expect(own[0]).toMatchObject({
      id: 'submission:ERP-1001',
      kind: 'submission',
      invoiceNo: 'ERP-1001',
      newValue: 'submitted',
      properties: { resolvedBy: 'reply' },
    });
    expect(new Set(own.map((n) => n.id)).size).toBe(own.length);
    const values = (kind: string) =>
      own.filter((n) => n.kind === kind && n.transfer === 'outbound').map((n) => n.newValue);
    expect(values('delivery').at(-1)).toBe('delivered');
    expect(new Set(values('delivery')).size).toBe(values('delivery').length);
    expect(values('lifecycle')).toEqual(['none', 'paid']);
    expect((await submission(s, 'ERP-1001')).message).toMatchObject({
      deliveryStatus: 'delivered',
      validationStatus: 'approved',
    });
  });

  it('hears of a validation failure of an invoice it sent, with its results', async () => {
    const recorder = recordingSink();
    const s = await startSandboxForTest({ sink: recorder.sink });
    const body = await exampleInvoice(s.provider.url, 'ERP-1002');
    delete body.invoice.currencyCode;
    const { body: view } = await send(s, body);
    expect(view.state).toBe('submitted');
    const failed = await eventually(
      async () =>
        recorder.taken.find((n) => n.messageId === view.messageId && n.newValue === 'failed'),
      'the failure to reach the sink',
    );
    expect(failed).toMatchObject({ kind: 'delivery', properties: { errorCode: 'BR-05' } });
    expect(failed.validationResults?.[0]).toMatchObject({ type: 'error', code: 'BR-05' });
  });

  it('after a reply lost once the service acted, learns the message from its created webhook: one submit', async () => {
    const recorder = recordingSink();
    const s = await startSandboxForTest({ sink: recorder.sink });
    await submitFault(s, 'lose-reply', 1);
    await send(s, await exampleInvoice(s.provider.url, 'ERP-2001'));
    const view = await settled(s, 'ERP-2001');
    expect(view).toMatchObject({ state: 'submitted', resolvedBy: 'created', attempts: 1 });
    expect(await serviceSide(s, 'ERP-2001')).toEqual({ messages: [view.messageId], submits: 1 });
    await eventually(
      async () => recorder.taken.some((n) => n.id === 'submission:ERP-2001'),
      'the sink to hear the submission',
    );
    expect(recorder.taken.find((n) => n.id === 'submission:ERP-2001')).toMatchObject({
      messageId: view.messageId,
      properties: { resolvedBy: 'created' },
    });
  });

  it('after a reply lost with no webhook to tell, finds the message by a lookup: one submit', async () => {
    const s = await startSandboxForTest({ webhooks: false });
    await submitFault(s, 'lose-reply', 1);
    await send(s, await exampleInvoice(s.provider.url, 'ERP-2002'));
    const view = await settled(s, 'ERP-2002');
    expect(view).toMatchObject({ state: 'submitted', resolvedBy: 'lookup', attempts: 1 });
    expect(await serviceSide(s, 'ERP-2002')).toEqual({ messages: [view.messageId], submits: 1 });
  });

  it('sends again, once, what surely never reached the service or was not acted on', async () => {
    const s = await startSandboxForTest({ webhooks: false });
    // Cut before the route (not acted on), then the service down twice: each outcome is
    // unknown to the consumer, which asks the service before each new attempt.
    await submitFault(s, 'reset', 1);
    await submitFault(s, '503', 2);
    await send(s, await exampleInvoice(s.provider.url, 'ERP-3001'));
    const view = await settled(s, 'ERP-3001');
    expect(view).toMatchObject({ state: 'submitted', resolvedBy: 'reply', attempts: 4 });
    expect(await serviceSide(s, 'ERP-3001')).toEqual({ messages: [view.messageId], submits: 4 });
  });

  it('refuses a submission it cannot key, and answers for invoice numbers it does not hold', async () => {
    const s = await startSandboxForTest();
    const noNumber = await send(s, { invoice: { currencyCode: 'NOK' } });
    expect(noNumber.status).toBe(400);
    expect(JSON.stringify(noNumber.body)).toContain('invoice.invoiceNo');
    const res = await request(`${s.consumer.url}/admin/submissions/NOPE-1`, {
      headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
    });
    expect(res.statusCode).toBe(404);
    await res.body.dump();
    const anonymous = await request(`${s.consumer.url}/admin/submissions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(anonymous.statusCode).toBe(401);
    await anonymous.body.dump();
  });
});
