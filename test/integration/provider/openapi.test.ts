/**
 * The OpenAPI 3.1 document of the simulator (src/provider/openapi.ts): valid, the same as the
 * checked-in docs/openapi.json and as GET /openapi.json, and true to what the simulator
 * really answers and sends: every answer and every webhook of a scenario is checked against
 * the schema the document gives for it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../../src/provider/openapi.ts';
import { descriptorOf } from '../../support/descriptors.ts';
import { type ContractChecker, createContractChecker } from '../../support/openapi-contract.ts';
import {
  minimalInvoice,
  SANDBOX,
  SUPPLIER,
  startTestProvider,
  type TestProvider,
} from './helpers.ts';
import { type RecordingEndpoint, startRecordingEndpoint } from './webhooks/recording-endpoint.ts';

const CHECKED_IN = join(import.meta.dirname, '../../../docs/openapi.json');
type Doc = ReturnType<typeof createOpenApiDocument>;
type Schema = Record<string, unknown>;

let provider: TestProvider;
let endpoint: RecordingEndpoint;
let doc: Doc;
let checker: ContractChecker;

beforeAll(async () => {
  doc = createOpenApiDocument();
  checker = createContractChecker(doc);
  provider = await startTestProvider();
  endpoint = await startRecordingEndpoint();
  provider.provider.dispatcher.createEndpoint(SANDBOX, { name: 'recorder', url: endpoint.url });
});
afterAll(async () => {
  await provider.close();
  await endpoint.close();
});

/** The value at a path of keys into nested objects. */
function dig(value: unknown, ...keys: string[]): unknown {
  return keys.reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], value);
}

/** A validator of the schema at a path into the document: true when `value` fits. */
function validator(...segments: string[]) {
  const validate = (value: unknown) => {
    validate.errors = checker.problemWith(segments, value);
    return validate.errors === undefined;
  };
  validate.errors = undefined as string | undefined;
  return validate;
}

/**
 * Checks a real answer against the document (test/support/openapi-contract.ts): its status is
 * listed, its type declared, its body and headers fit. The requests here are refused on purpose
 * too, so only the answer is judged.
 */
async function answers(res: Response, path: string, method: string) {
  const body = Buffer.from(await res.arrayBuffer());
  const url = new URL(res.url);
  const result = checker.checkApi({
    method,
    url: `${url.pathname}${url.search}`,
    requestHeaders: {},
    requestBody: Buffer.alloc(0),
    status: res.status,
    responseHeaders: Object.fromEntries(res.headers),
    responseBody: body,
  });
  expect(result.operationId, `${method} ${path}`).toBeDefined();
  expect(result.responseViolations, `${method.toUpperCase()} ${path}`).toEqual([]);
  const type = res.headers.get('content-type') ?? '';
  return /[/+]json/.test(type) ? JSON.parse(body.toString('utf8')) : body.toString('utf8');
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('is checked in as docs/openapi.json (npm run openapi) and served at GET /openapi.json', async () => {
    expect(JSON.parse(readFileSync(CHECKED_IN, 'utf8'))).toEqual(doc);
    const res = await fetch(`${provider.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(doc);
  });

  it('requires every mandatory element of the submit-invoice body the specification lists', () => {
    const schemas = (doc.components as { schemas: Record<string, Schema> }).schemas;
    const required = (schema: Schema, prefix: string): string[] =>
      ((schema.required as string[] | undefined) ?? []).flatMap((name) => {
        const child = (schema.properties as Record<string, Schema>)[name] as Schema;
        const path = `${prefix}${name}`;
        if (child.type === 'object') return required(child, `${path}.`);
        if (child.type === 'array') {
          return [path, ...required(child.items as Schema, `${path}[].`)];
        }
        return [path];
      });
    // The specification's table of mandatory elements (docs/messaging-api.md#submit-invoice-body).
    const address = (party: string) =>
      ['streetNameAndNumber', 'city', 'postalZone', 'countryCode'].map(
        (field) => `invoice.${party}.address.${field}`,
      );
    const line = (field: string) => `invoice.invoiceLines[].${field}`;
    expect(required(schemas.SubmitInvoice as Schema, '').sort()).toEqual(
      [
        'messageHandling.receiverIdentifier',
        'messageHandling.fallbackEmailAddress',
        'invoice.invoiceNo',
        'invoice.issueDate',
        'invoice.currencyCode',
        'invoice.orderReference.documentNo',
        'invoice.orderReference.issueDate',
        'invoice.supplier.vatNumber',
        'invoice.supplier.name',
        'invoice.supplier.identifier',
        ...address('supplier'),
        'invoice.customer.name',
        'invoice.customer.identifier',
        ...address('customer'),
        'invoice.invoiceLines',
        ...[
          'itemNo',
          'name',
          'quantity',
          'unitOfMeasure.unit',
          'unitPriceAmount',
          'taxCategoryType',
          'taxableAmount',
          'taxAmount',
          'taxPercentage',
        ].map(line),
      ].sort(),
    );
    const valid = validator('components', 'schemas', 'SubmitInvoice');
    expect(valid(minimalInvoice(SANDBOX))).toBe(true);
    expect(valid({})).toBe(false);
    const late = minimalInvoice(SANDBOX);
    late.invoice.issueDate = '2026-01-05T09:00:00+01:00';
    expect(valid(late)).toBe(false);
  });

  it('names the status properties of each status action, validationResults as JSON inside a string', () => {
    const schemas = (doc.components as { schemas: Record<string, Schema> }).schemas;
    // components.schemas.<name>.properties.properties.properties: the property names.
    const statusProperties = (schema: string) =>
      dig(schemas, schema, 'properties', 'properties', 'properties') as Record<string, Schema>;
    const names = (schema: string) => Object.keys(statusProperties(schema));
    expect(names('MessageStatusChange')).toEqual([
      'errorCode',
      'errorMessage',
      'validationResults',
      'reason',
    ]);
    expect(names('TaxReportingStatusChange')).toEqual([
      'actionMessageId',
      'actionName',
      'jurisdiction',
      'role',
      'errorCode',
      'errorMessage',
    ]);
    expect(names('LifecycleStatusChange')).toEqual([
      'actionMessageId',
      'actionName',
      'jurisdiction',
      'role',
      'rejectionType',
      'reason',
      'paidAmount',
      'paymentDate',
    ]);
    const change = validator('components', 'schemas', 'MessageStatusChange');
    const failed = {
      formerValue: 'received',
      newValue: 'failed',
      properties: {
        errorCode: 'BR-02',
        validationResults: JSON.stringify([
          {
            type: 'error',
            code: 'BR-02',
            message: 'invoiceNo is mandatory',
            location: '/Invoice/cbc:ID',
          },
        ]),
        somethingNew: 'ignored by consumers',
      },
    };
    expect(change(failed), JSON.stringify(change.errors)).toBe(true);
    const results = statusProperties('MessageStatusChange').validationResults;
    expect(results).toMatchObject({
      type: 'string',
      contentMediaType: 'application/json',
      contentSchema: { type: 'array', items: { $ref: '#/components/schemas/ValidationResult' } },
    });
  });

  it('keeps open what the service may extend, and marks each decision of this project', () => {
    const text = JSON.stringify(doc);
    // Only the project's own request body is closed: the service may add fields to the rest.
    const closed = [...text.matchAll(/"additionalProperties":false/g)].length;
    const schemas = (doc.components as { schemas: Record<string, Schema> }).schemas;
    expect(closed).toBe(1);
    expect(schemas.MarkAsFailed?.additionalProperties).toBe(false);
    const open = validator('components', 'schemas', 'WebhookEnvelope');
    expect(
      open({
        eventId: 'e1',
        action: 'somethingNew',
        transfer: 'inbound',
        occurredAt: '2026-01-05T09:00:00.123Z',
        test: false,
        party: '0192:999999999',
        messageId: 'm1',
        data: {},
        addedLater: true,
      }),
    ).toBe(true);
    const decisions = readFileSync(join(import.meta.dirname, '../../../docs/decisions.md'), 'utf8');
    const anchors = [...text.matchAll(/"x-decision":"docs\/decisions\.md#([a-z0-9-]+)"/g)].map(
      (m) => m[1],
    );
    expect(anchors.length).toBeGreaterThan(5);
    for (const anchor of anchors) expect(decisions, anchor).toContain(`<a id="${anchor}"></a>`);
  });

  it("promises the receiver's <scheme>:<number> form on the inbound side, and the body's receiver as sent on the outbound side", () => {
    const descriptor = validator('components', 'schemas', 'MessageDescriptor');
    const receivedBy = (identifier: string) =>
      descriptorOf({
        uniqueId: 'm1',
        destinationParty: { identifier, name: 'Nobody', countryCode: 'NO' },
      });
    const sentTo = (identifier: string) => ({
      ...receivedBy(identifier),
      transfer: 'outbound',
      validationStatus: 'rejected',
      status: 'failed',
    });
    expect(descriptor(sentTo('nobody'))).toBe(true);
    expect(descriptor(sentTo(''))).toBe(true);
    expect(descriptor(receivedBy('0192:999999999'))).toBe(true);
    expect(descriptor(receivedBy('nobody'))).toBe(false);
    expect(descriptor.errors).toMatch(/destinationParty\/identifier must match pattern/);
  });

  it('gives every call and every webhook its own operationId', () => {
    const ids = [
      ...Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>)
        .flatMap((item) => Object.values(item))
        .map((op) => op.operationId),
      ...Object.values(doc.webhooks as Record<string, { post: { operationId?: string } }>).map(
        (hook) => hook.post.operationId,
      ),
    ];
    expect(ids).toHaveLength(15);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has a webhook for every event with the signature, event id, action and transfer headers', () => {
    const webhooks = doc.webhooks as Record<string, { post: { parameters: { name: string }[] } }>;
    expect(Object.keys(webhooks)).toEqual([
      'created',
      'deliveryNotified',
      'messageStatusChanged',
      'taxReportingStatusChanged',
      'lifecycleStatusChanged',
    ]);
    for (const hook of Object.values(webhooks)) {
      expect(hook.post.parameters.map((p) => p.name)).toEqual([
        'SVC-Webhook-Signature',
        'SVC-Webhook-Event-Id',
        'SVC-Webhook-Action',
        'SVC-Webhook-Transfer',
        'User-Agent',
      ]);
    }
  });

  it("matches the simulator's real answers, success and error alike", async () => {
    const api = provider.api;
    // Submit: 201, then 400 for a body that is not an object; 401 without the token.
    const submitted = await api('/transactions/submit-invoice', {
      method: 'POST',
      body: JSON.stringify(minimalInvoice(SANDBOX)),
    });
    const { messageId } = (await answers(submitted, '/transactions/submit-invoice', 'post')) as {
      messageId: string;
    };
    await answers(
      await api('/transactions/submit-invoice', { method: 'POST', body: '[]' }),
      '/transactions/submit-invoice',
      'post',
    );
    await answers(await fetch(`${provider.url}/messages`), '/messages', 'get');
    const invalid = minimalInvoice(SUPPLIER) as { invoice: Record<string, unknown> };
    delete invalid.invoice.currencyCode;
    const rejected = (await (
      await api('/transactions/submit-invoice', { method: 'POST', body: JSON.stringify(invalid) })
    ).json()) as { messageId: string };
    await provider.admin(
      `/participants/${SANDBOX}/settings`,
      { acknowledgementResponse: 'MLR' },
      'PUT',
    );
    const acknowledged = (await (
      await api('/transactions/submit-invoice', {
        method: 'POST',
        body: JSON.stringify(minimalInvoice(SUPPLIER)),
      })
    ).json()) as { messageId: string };
    provider.settle();

    await answers(
      await api(`/transactions/submit-invoice?messageId=${messageId}`),
      '/transactions/submit-invoice',
      'get',
    );
    await answers(await api('/messages?transfer=inbound&limit=2'), '/messages', 'get');
    await answers(await api('/messages?documentNo=INV-1001&limit=1'), '/messages', 'get');
    await answers(await api('/messages?limit=0'), '/messages', 'get');
    await answers(await api(`/messages/${messageId}`), '/messages/{mid}', 'get');
    await answers(await api('/messages/unknown-id'), '/messages/{mid}', 'get');
    await answers(
      await api(`/messages/${messageId}/status?transfer=outbound`),
      '/messages/{mid}/status',
      'get',
    );
    await answers(
      await api(`/messages/${messageId}/documents/core`),
      '/messages/{mid}/documents/core',
      'get',
    );
    // The core document in each format a scenario can deliver (docs/messaging-api.md#document-formats).
    for (const format of ['XML', 'JSON', 'PDF', 'EDI']) {
      const created = await provider.admin('/messages/inbound', {
        document: { type: 'CreditNote', format },
      });
      const { messageId: inboundId } = (await created.json()) as { messageId: string };
      provider.settle();
      await answers(
        await api(`/messages/${inboundId}/documents/core`),
        '/messages/{mid}/documents/core',
        'get',
      );
    }
    await answers(
      await api(`/messages/${rejected.messageId}/documents/core?transfer=outbound`),
      '/messages/{mid}/documents/core',
      'get',
    );

    const response = provider.events
      .map((e) => e.envelope)
      .find(
        (e) =>
          e.messageId !== acknowledged.messageId &&
          e.action === 'deliveryNotified' &&
          e.messageId !== messageId,
      );
    expect(response).toBeDefined();
    await answers(
      await api(`/transactions/message-level-response?messageId=${response?.messageId}`),
      '/transactions/message-level-response',
      'get',
    );
    await answers(
      await api(`/messages/${messageId}/mark-as-failed`, { method: 'POST', body: '{"reason": 7}' }),
      '/messages/{mid}/mark-as-failed',
      'post',
    );
    await answers(
      await api(`/messages/${messageId}/mark-as-delivered`, { method: 'POST' }),
      '/messages/{mid}/mark-as-delivered',
      'post',
    );
    await answers(
      await api(`/messages/${messageId}/mark-as-failed`, {
        method: 'POST',
        body: '{"reason":"x"}',
      }),
      '/messages/{mid}/mark-as-failed',
      'post',
    );
    // Tax and lifecycle events too, for the webhook check below.
    await provider.admin(`/messages/${messageId}/tax-report`, {
      jurisdiction: 'Croatia',
      status: 'non_electronic',
    });
    await provider.admin(`/messages/${messageId}/payment`, {
      paidAmount: '10.00',
      paymentDate: '2026-01-20',
    });
    await provider.admin('/faults', { count: 1, mode: '503', pathPrefix: '/messages' });
    await answers(await api('/messages'), '/messages', 'get');
  });

  it('matches every webhook the simulator sent: body by action, and the headers', async () => {
    await provider.provider.dispatcher.idle();
    expect(endpoint.requests.length).toBeGreaterThanOrEqual(10);
    const seen = new Set<string>();
    for (const request of endpoint.requests) {
      const body = JSON.parse(request.body.toString('utf8')) as { action: string };
      seen.add(body.action);
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        ),
      );
      const result = checker.checkWebhook({ headers, body: request.body });
      expect(result.requestViolations, body.action).toEqual([]);
    }
    expect([...seen].sort()).toEqual([
      'created',
      'deliveryNotified',
      'lifecycleStatusChanged',
      'messageStatusChanged',
      'taxReportingStatusChanged',
    ]);
  });
});
