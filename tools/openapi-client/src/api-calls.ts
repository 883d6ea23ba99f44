/**
 * The calls a consumer makes, through the client generated from docs/openapi.json: submit an
 * invoice, find it in the message list, read its descriptor, its status and its JSON. Every
 * request and answer is typed from the document, so a change of the document that breaks a
 * caller breaks this file's compilation first. An answer a user would not expect throws
 * UnexpectedAnswer, which names the call.
 */
import type { Client } from 'openapi-fetch';
import type { components, paths } from '../generated/openapi.ts';

type Schemas = components['schemas'];
export type ServiceClient = Client<paths>;

/** An answer other than the one the document promises for a well-formed call. */
export class UnexpectedAnswer extends Error {
  override name = 'UnexpectedAnswer';
  /** The call, e.g. `GET /messages/{mid}`. */
  readonly call: string;
  /** The HTTP status, or undefined when the answer had the right status but not the content. */
  readonly status: number | undefined;

  constructor(call: string, status: number | undefined, detail: string) {
    super(`${call}: ${detail}`);
    this.call = call;
    this.status = status;
  }
}

export interface ApiCallsResult {
  messageId: string;
  /** The status the submit call answered (`received`, or `notset` with `more`). */
  submitStatus: string;
  /** The status the message had in GET /messages. */
  listedStatus: string;
  descriptor: Schemas['MessageDescriptor'];
  /** GET /messages/{mid}/status. */
  status: string;
  /**
   * GET /transactions/submit-invoice: the JSON as submitted, SubmitInvoice when it passed
   * validation (a document let through with errors can be any object).
   */
  transaction: Schemas['SubmittedInvoice'];
}

/** How many pages of GET /messages to read looking for the new message before giving up. */
const MAX_PAGES = 50;
/** Polls of the status while the invoice waits for validation: at most 5 s. */
const MAX_POLLS = 100;
const POLL_MS = 50;

/** The data of a successful answer with the expected status, or UnexpectedAnswer. */
function answered<T>(
  call: string,
  expected: number,
  answer: { data?: T; error?: unknown; response: Response },
): T {
  const { status } = answer.response;
  if (status !== expected || answer.data === undefined) {
    const body = answer.error === undefined ? '' : ` ${JSON.stringify(answer.error)}`;
    throw new UnexpectedAnswer(call, status, `answered ${status}, not ${expected}${body}`);
  }
  return answer.data;
}

async function findInList(client: ServiceClient, messageId: string) {
  const call = 'GET /messages';
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = { transfer: 'outbound' as const, limit: 100, ...(cursor ? { cursor } : {}) };
    const list = answered(call, 200, await client.GET('/messages', { params: { query } }));
    const found = list.items.find((item) => item.uniqueId === messageId);
    if (found !== undefined) return found;
    if (list.nextCursor === null) break;
    cursor = list.nextCursor;
  }
  throw new UnexpectedAnswer(call, 200, `does not list the submitted message ${messageId}`);
}

export async function runApiCalls(
  client: ServiceClient,
  invoice: Schemas['SubmitInvoice'],
): Promise<ApiCallsResult> {
  const submitted = answered(
    'POST /transactions/submit-invoice',
    201,
    await client.POST('/transactions/submit-invoice', { body: invoice }),
  );
  const { messageId } = submitted;
  // A submitted message is listed at once, before validation: its outbound side is ours.
  const listed = await findInList(client, messageId);
  const mid = { path: { mid: messageId } };

  const descriptorCall = 'GET /messages/{mid}';
  const descriptor = answered(
    descriptorCall,
    200,
    await client.GET('/messages/{mid}', { params: mid }),
  );
  if (descriptor.uniqueId !== messageId || descriptor.transfer !== 'outbound') {
    const seen = `${descriptor.uniqueId} (${descriptor.transfer})`;
    throw new UnexpectedAnswer(descriptorCall, 200, `describes ${seen}, not ${messageId}`);
  }
  // The transaction JSON is there once the invoice passed validation (409 before): poll the
  // status, as a client without webhooks would, until it leaves `received`.
  const statusCall = 'GET /messages/{mid}/status';
  let status = 'received';
  for (let poll = 0; poll < MAX_POLLS && status === 'received'; poll++) {
    if (poll > 0) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    ({ status } = answered(
      statusCall,
      200,
      await client.GET('/messages/{mid}/status', { params: mid }),
    ));
  }

  const transactionCall = 'GET /transactions/submit-invoice';
  const transaction = answered(
    transactionCall,
    200,
    await client.GET('/transactions/submit-invoice', { params: { query: { messageId } } }),
  );
  const invoiceNo = 'invoice' in transaction ? transaction.invoice.invoiceNo : undefined;
  if (invoiceNo !== invoice.invoice?.invoiceNo) {
    throw new UnexpectedAnswer(transactionCall, 200, `answers invoice ${invoiceNo}`);
  }
  return {
    messageId,
    submitStatus: submitted.status,
    listedStatus: listed.status,
    descriptor,
    status,
    transaction,
  };
}
