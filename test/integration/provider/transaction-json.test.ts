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
import { minimalInvoice, SANDBOX, SUPPLIER, testProviderForEachTest } from './helpers.ts';

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
    const res = await provider.api('/transactions/submit-invoice', {
      method: 'POST',
      body: JSON.stringify(minimalInvoice(SUPPLIER)),
    });
    const { messageId: invoiceId } = (await res.json()) as { messageId: string };
    provider.settle();
    const responseId = provider.events.find(
      (e) => e.envelope.party === SANDBOX && e.envelope.messageId !== invoiceId,
    )?.envelope.messageId;
    const { action, json } = await transactionJson(responseId ?? '');
    expect(action).toBe(responseAction);
    expect(json).toMatchObject({ responseType: kind, referencedMessageId: invoiceId });
  },
);
