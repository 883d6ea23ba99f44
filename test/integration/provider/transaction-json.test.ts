/**
 * The transaction JSON the simulator answers conforms to the protocol's types
 * (src/protocol/transaction-types.ts), which a forker's importer parses: each message's JSON is
 * fetched as a consumer would, at the route its descriptor's action chooses, and parsed with the
 * schema the protocol exports for that action.
 */
import { expect, it } from 'vitest';
import {
  type MessageDescriptor,
  transactionJsonSchemas,
  transactionPath,
} from '../../../src/protocol/index.ts';
import {
  expectProblem,
  minimalInvoice,
  SANDBOX,
  SUPPLIER,
  testProviderForEachTest,
} from './helpers.ts';

const provider = testProviderForEachTest();

/** The message's JSON, from the route its action names, parsed with the protocol's schema. */
async function transactionJson(messageId: string) {
  const descriptor = (await (
    await provider.api(`/messages/${messageId}`)
  ).json()) as MessageDescriptor;
  const res = await provider.api(`${transactionPath(descriptor.action)}?messageId=${messageId}`);
  expect(res.status).toBe(200);
  const schema = transactionJsonSchemas[descriptor.action as keyof typeof transactionJsonSchemas];
  expect(schema, `a schema for ${descriptor.action}`).toBeDefined();
  const result = schema.safeParse(await res.json());
  expect(result.error?.issues ?? []).toEqual([]);
  return { action: descriptor.action, json: result.data };
}

it('a SubmitInvoice message answers the invoice JSON as submitted, a SubmitInvoiceBody', async () => {
  const messageId = await provider.inbound({ invoice: { invoiceNo: 'INV-42' } });
  const { action, json } = await transactionJson(messageId);
  expect(action).toBe('SubmitInvoice');
  expect(json).toEqual(provider.provider.model.messages.get(messageId).body);
  expect(json).toMatchObject({ invoice: { invoiceNo: 'INV-42' } });
});

it.each([
  ['MLR', 'MessageLevelResponse'],
  ['eMLR', 'EMessageLevelResponse'],
])(
  'an %s answers an AcknowledgementResponseBody at its own route',
  async (kind, responseAction) => {
    await provider.admin(
      `/participants/${SANDBOX}/settings`,
      { acknowledgementResponse: kind },
      'PUT',
    );
    const { messageId: invoiceId } = await provider.submitInvoice(minimalInvoice(SUPPLIER));
    provider.settle();
    const responseId = provider.events.find(
      (e) => e.envelope.party === SANDBOX && e.envelope.messageId !== invoiceId,
    )?.envelope.messageId;
    const { action, json } = await transactionJson(responseId ?? '');
    expect(action).toBe(responseAction);
    expect(json).toMatchObject({ responseType: kind, referencedMessageId: invoiceId });
  },
);

/** Submits an invoice as the sandbox participant, to the demo supplier. */
async function submit(body: unknown): Promise<string> {
  return (await provider.submitInvoice(body)).messageId;
}

async function expectNoJson(messageId: string) {
  const res = await provider.api(`/transactions/submit-invoice?messageId=${messageId}`);
  expect(await expectProblem(res, 409)).toEqual({
    type: 'about:blank',
    title: 'Conflict',
    status: 409,
    detail: `Message ${messageId} has no transaction JSON: it has not passed validation.`,
  });
}

it('an invoice that failed validation has no transaction JSON: 409, as its core document', async () => {
  const invalid = minimalInvoice(SUPPLIER) as { invoice: Record<string, unknown> };
  delete invalid.invoice.currencyCode;
  const messageId = await submit(invalid);
  provider.settle();
  expect(provider.provider.model.messages.get(messageId).validationStatus).toBe('rejected');
  await expectNoJson(messageId);
  expect((await provider.api(`/messages/${messageId}/documents/core`)).status).toBe(409);
  // The refusal changes nothing: the outbound side stays failed, no event is sent.
  const events = provider.events.length;
  expect(await (await provider.api(`/messages/${messageId}/status`)).json()).toEqual({
    status: 'failed',
  });
  expect(provider.events.length).toBe(events);
});

it('a submitted invoice has transaction JSON once it passed validation: 409 before, 200 after', async () => {
  const messageId = await submit(minimalInvoice(SUPPLIER));
  await expectNoJson(messageId);
  provider.settle();
  const { action, json } = await transactionJson(messageId);
  expect(action).toBe('SubmitInvoice');
  expect(json).toEqual(minimalInvoice(SUPPLIER));
});
