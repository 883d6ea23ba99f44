/**
 * The OpenAPI 3.1 document of the simulator (src/provider/openapi.ts): valid, the same as the
 * checked-in docs/openapi.json and as GET /openapi.json, and true to what the simulator
 * really answers and sends: every answer and every webhook of a scenario is checked against
 * the schema the document gives for it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../../src/provider/openapi.ts';
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

let provider: TestProvider;
let endpoint: RecordingEndpoint;
let doc: Doc;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats.default(ajv);

beforeAll(async () => {
  doc = createOpenApiDocument();
  ajv.addSchema(doc, 'openapi');
  provider = await startTestProvider();
  endpoint = await startRecordingEndpoint();
  provider.provider.dispatcher.createEndpoint(SANDBOX, { name: 'recorder', url: endpoint.url });
});
afterAll(async () => {
  await provider.close();
  await endpoint.close();
});

/** The schema at a JSON pointer into the document, as path segments. */
function validator(...segments: string[]) {
  const pointer = segments
    .map((s) => encodeURIComponent(s.replaceAll('~', '~0').replaceAll('/', '~1')))
    .join('/');
  const validate = ajv.getSchema(`openapi#/${pointer}`);
  if (validate === undefined) throw new Error(`no schema at ${segments.join(' ')}`);
  return validate;
}

/** Checks a real answer against the document: its status is listed, its body fits. */
async function answers(res: Response, path: string, method: string) {
  const status = String(res.status);
  const operation = (
    doc.paths as Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>
    >
  )[path]?.[method];
  const response = operation?.responses[status];
  expect(
    response,
    `${method.toUpperCase()} ${path} answered ${status}, not in the document`,
  ).toBeDefined();
  const type = (res.headers.get('content-type') ?? '').split(';')[0] ?? '';
  if (response?.content === undefined) {
    expect(await res.text()).toBe('');
    return undefined;
  }
  expect(Object.keys(response.content)).toContain(type);
  const body = /[/+]json$/.test(type) ? await res.json() : await res.text();
  const validate = validator('paths', path, method, 'responses', status, 'content', type, 'schema');
  expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  return body;
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
    const webhooks = doc.webhooks as Record<
      string,
      { post: { parameters: { name: string; schema: object }[] } }
    >;
    for (const request of endpoint.requests) {
      const body = JSON.parse(request.body.toString('utf8')) as { action: string };
      seen.add(body.action);
      const hook = webhooks[body.action];
      expect(hook, body.action).toBeDefined();
      const validate = validator(
        'webhooks',
        body.action,
        'post',
        'requestBody',
        'content',
        'application/json',
        'schema',
      );
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
      for (const parameter of hook?.post.parameters ?? []) {
        const value = request.headers[parameter.name.toLowerCase()];
        expect(typeof value, parameter.name).toBe('string');
        expect(ajv.validate(parameter.schema, value), `${parameter.name}: ${value}`).toBe(true);
      }
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
