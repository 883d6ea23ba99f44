import { describe, expect, it } from 'vitest';
import { parseValidationResults } from '../../../src/protocol/index.ts';
import {
  MANDATORY_ELEMENTS,
  MANDATORY_LINE_ELEMENTS,
} from '../../../src/provider/invoice-validation.ts';
import {
  change,
  expectProblem,
  minimalInvoice,
  SANDBOX,
  SUPPLIER,
  summary,
  testProviderForEachTest,
} from './helpers.ts';

const provider = testProviderForEachTest();

const submit = (body: unknown, query = '') => provider.submitInvoice(body, query);

/** Removes the element at a dotted path (lines addressed as invoice.invoiceLines.0.x). */
function without(path: string): unknown {
  const body = minimalInvoice(SUPPLIER) as unknown as Record<string, unknown>;
  const keys = path.split('.');
  const last = keys.pop() as string;
  let target = body as Record<string, unknown>;
  for (const key of keys) target = target[key] as Record<string, unknown>;
  delete target[last];
  return body;
}

describe('POST /transactions/submit-invoice', () => {
  it('accepts the minimal body of SPEC 2.1 and validates it after the call', async () => {
    const { messageId, status } = await submit(minimalInvoice(SUPPLIER));
    expect(status).toBe('received');
    expect(summary(provider.eventsOf(messageId, { party: SANDBOX }))).toEqual(['outbound:created']);

    provider.settle();
    const outbound = provider.eventsOf(messageId, { party: SANDBOX });
    expect(summary(outbound)).toEqual([
      'outbound:created',
      'outbound:messageStatusChanged:received->pendingdelivery',
      'outbound:deliveryNotified',
    ]);
    expect(change(outbound[1]).properties).toBeUndefined();
    expect(new Set(outbound.map((e) => e.eventId)).size).toBe(3);
    expect(outbound[0]?.occurredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // The known receiver gets the message as inbound.
    expect(summary(provider.eventsOf(messageId, { party: SUPPLIER }))).toEqual([
      'inbound:created',
      'inbound:messageStatusChanged:received->pendingdelivery',
      'inbound:deliveryNotified',
    ]);
  });

  const cases = [
    ...MANDATORY_ELEMENTS.map((e) => ({ path: e.path, location: e.location })),
    ...MANDATORY_LINE_ELEMENTS.map((e) => ({
      path: `invoice.invoiceLines.0.${e.path}`,
      location: `/Invoice/cac:InvoiceLine[1]/${e.location}`,
    })),
    { path: 'invoice.invoiceLines', location: '/Invoice/cac:InvoiceLine' },
  ];
  it.each(cases)('fails validation without $path', async ({ path, location }) => {
    const { messageId, status } = await submit(without(path));
    expect(status).toBe('received');
    provider.settle();
    const events = provider.eventsOf(messageId, { party: SANDBOX });
    expect(summary(events)).toEqual([
      'outbound:created',
      'outbound:messageStatusChanged:received->failed',
    ]);
    const properties = change(events[1]).properties ?? {};
    const results = parseValidationResults(properties.validationResults);
    expect(results.map((r) => r.location)).toContain(location);
    expect(properties.errorCode).toBe(results[0]?.code);
    expect(properties.errorMessage).toBe(results[0]?.message);
    const state = (await (
      await provider.admin(`/messages/${messageId}`, undefined, 'GET')
    ).json()) as {
      validationStatus: string;
    };
    expect(state.validationStatus).toBe('rejected');
  });

  it('reports a mistyped element as a schema error at its location', async () => {
    const body = minimalInvoice(SUPPLIER);
    (body.invoice.invoiceLines[0] as Record<string, unknown>).quantity = '3';
    const { messageId } = await submit(body);
    provider.settle();
    const failed = provider.eventsOf(messageId, { party: SANDBOX }).at(-1);
    expect(change(failed).newValue).toBe('failed');
    expect(change(failed).properties?.errorCode).toBe('schema');
    expect(parseValidationResults(change(failed).properties?.validationResults)).toEqual([
      expect.objectContaining({
        type: 'error',
        code: 'schema',
        location: '/Invoice/cac:InvoiceLine[1]/cbc:InvoicedQuantity',
      }),
    ]);
  });

  it('keeps a message open with more=true: status notset and only the created event', async () => {
    const { messageId, status } = await submit(minimalInvoice(SUPPLIER), '?more=true');
    expect(status).toBe('notset');
    provider.settle();
    expect(summary(provider.eventsOf(messageId))).toEqual(['outbound:created']);
    const res = await provider.api(`/messages/${messageId}/status`);
    expect(await res.json()).toEqual({ status: 'notset' });
  });

  it('treats more=false like no more parameter', async () => {
    expect((await submit(minimalInvoice(SUPPLIER), '?more=false')).status).toBe('received');
  });

  it.each([
    ['not JSON', '{"invoice": '],
    ['a JSON array', '[]'],
    ['a JSON string', '"invoice"'],
  ])('answers 400 problem when the body is %s', async (_name, body) => {
    const res = await provider.api('/transactions/submit-invoice', { method: 'POST', body });
    expect(await expectProblem(res, 400)).toMatchObject({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
    });
    expect(provider.events).toHaveLength(0);
  });

  it('answers 400 for a more value that is not true or false', async () => {
    const res = await provider.api('/transactions/submit-invoice?more=yes', {
      method: 'POST',
      body: JSON.stringify(minimalInvoice(SUPPLIER)),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ field: 'more' });
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer nope' }],
    ['another scheme', { authorization: 'Basic c2FuZGJveC10b2tlbg==' }],
  ])('answers 401 problem with %s', async (_name, headers) => {
    const res = await fetch(`${provider.url}/transactions/submit-invoice`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(minimalInvoice(SUPPLIER)),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toMatchObject({ status: 401, title: 'Unauthorized' });
    expect(provider.events).toHaveLength(0);
  });

  it('returns the invoice JSON as submitted from GET /transactions/submit-invoice', async () => {
    const body = { ...minimalInvoice(SUPPLIER), extra: { kept: true } };
    const { messageId } = await submit(body);
    // Only once it passed validation (409 before: transaction-json.test.ts).
    provider.settle();
    const res = await provider.api(`/transactions/submit-invoice?messageId=${messageId}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(body);
    const other = await provider.api(`/transactions/correct-with-credit?messageId=${messageId}`);
    await expectProblem(other, 404);
  });

  it('makes a body that says it is a credit note one: its core document is a UBL CreditNote', async () => {
    const body = minimalInvoice(SUPPLIER);
    const credit = {
      ...body,
      invoice: {
        ...body.invoice,
        documentType: 'CreditNote',
        billingReference: { invoiceNo: 'INV-0999', issueDate: '2025-12-01' },
        paymentTerms: 'Refunded within 14 days',
      },
    };
    const { messageId } = await submit(credit);
    provider.settle();
    const descriptor = (await (await provider.api(`/messages/${messageId}`)).json()) as {
      validationStatus: string;
      documents: { name: string }[];
    };
    expect(descriptor.validationStatus).toBe('approved');
    expect(descriptor.documents.map((d) => d.name)).toContain('CreditNote');
    const xml = await (await provider.api(`/messages/${messageId}/documents/core`)).text();
    expect(xml).toMatch(
      /^<\?xml[^>]*>\s*<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/,
    );
    expect(xml).toContain('<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>');
    expect(xml).toContain(
      '<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>INV-0999</cbc:ID><cbc:IssueDate>2025-12-01</cbc:IssueDate></cac:InvoiceDocumentReference></cac:BillingReference>',
    );
    expect(xml).toContain(
      '<cac:PaymentTerms><cbc:Note>Refunded within 14 days</cbc:Note></cac:PaymentTerms>',
    );
  });

  it('refuses a body that breaks a Peppol rule, with that rule in errorCode', async () => {
    const body = minimalInvoice(SUPPLIER);
    const [line] = body.invoice.invoiceLines;
    const { messageId } = await submit({
      ...body,
      invoice: { ...body.invoice, invoiceLines: [{ ...line, taxCategoryType: 'X' }] },
    });
    provider.settle();
    const failed = provider.eventsOf(messageId, { party: SANDBOX }).at(-1);
    expect(change(failed).newValue).toBe('failed');
    expect(change(failed).properties?.errorCode).toBe('BR-CL-18');
  });
});
