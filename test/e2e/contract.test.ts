/**
 * The simulator keeps to its published contract (docs/openapi.json), checked by a validating
 * layer built from the document alone (test/support/openapi-contract.ts): the consumer runs
 * against the simulator through a proxy that checks every messaging API call and answer, and
 * the simulator's webhooks reach the consumer through one that checks every request. The
 * flows are the product's: inbound invoices imported and acknowledged (with warnings, with
 * errors let through, refused by the importer), acknowledgement responses, outbound
 * submissions valid and not (one addressed to `nobody`), delivery failures, tax and lifecycle
 * changes, a parked message, injected 429 and 503 answers, a reconciliation run and a test
 * event. A few calls the document refuses on purpose (no token, a wrong `transfer`, an
 * undeclared content type) check that their answers are listed too. The test fails on any call, answer or webhook the
 * document does not allow, and on any operation of the document the flows never used.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFileImporter,
  type Importer,
  PermanentImportError,
} from '../../src/consumer/importer/index.ts';
import { parseValidationResults, type WebhookEnvelope } from '../../src/protocol/index.ts';
import { DEMO_SUPPLIER } from '../../src/provider/model/index.ts';
import { createOpenApiDocument } from '../../src/provider/openapi.ts';
import { type RunningProvider, startProvider } from '../../src/provider/provider.ts';
import { minimalInvoice } from '../integration/provider/helpers.ts';
import { startTestConsumer, TEST_SECRET, type TestConsumer } from '../support/consumer.ts';
import { type RunningProxy, startProxy } from '../support/http-proxy.ts';
import { type CheckResult, createContractChecker } from '../support/openapi-contract.ts';
import { runScript } from '../support/processes.ts';
import { eventually, SANDBOX_ADMIN_TOKEN, SANDBOX_PARTY } from '../support/sandbox.ts';

const ROOT = join(import.meta.dirname, '../..');
/** Marks a call the test makes knowing the document does not allow the request. */
const PROBE = 'x-contract-probe';
const REFUSED_BY_IMPORTER = 'INV-REFUSE';

interface Seen extends CheckResult {
  what: string;
  status?: number;
  probe: boolean;
}

const doc = createOpenApiDocument();
const checker = createContractChecker(doc);
const seen: Seen[] = [];
const published: WebhookEnvelope[] = [];
let provider: RunningProvider;
let consumer: TestConsumer;
let api: RunningProxy;
let hooks: RunningProxy;

beforeAll(async () => {
  provider = await startProvider({
    logger: pino({ level: 'silent' }),
    tap: { publish: (envelope) => published.push(envelope) },
  });
  const probes = new WeakSet<object>();
  api = await startProxy({
    target: provider.url,
    before(req) {
      if (req.headers[PROBE] !== undefined) {
        probes.add(req);
        delete req.headers[PROBE];
      }
      return undefined;
    },
    after(req, status, answer) {
      const result = checker.checkApi({
        method: req.method,
        url: req.url,
        requestHeaders: req.headers,
        requestBody: req.body,
        status,
        responseHeaders: answer.headers,
        responseBody: answer.body,
      });
      seen.push({ ...result, what: `${req.method} ${req.url}`, status, probe: probes.has(req) });
    },
  });
  const fileImporter = (dir: string): Importer => {
    const files = createFileImporter({
      documentsDir: join(dir, 'documents'),
      logger: pino({ level: 'silent' }),
    });
    // Refuses one invoice number for good, so the flow reaches mark-as-failed.
    return {
      async import(input) {
        if (input.descriptor.documentNo === REFUSED_BY_IMPORTER) {
          throw new PermanentImportError('The buyer reference is unknown to the ERP.');
        }
        return files.import(input);
      },
    };
  };
  const dir = mkdtempSync(join(tmpdir(), 'contract-'));
  consumer = await startTestConsumer(
    {
      API_BASE_URL: api.url,
      API_TOKEN: 'sandbox-token',
      API_TIMEOUT_MS: '2000',
      ADMIN_TOKEN: SANDBOX_ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
    },
    {
      dir,
      startWorker: true,
      worker: { pollIntervalMs: 20, retryDelay: () => 100 },
      importer: fileImporter(dir),
    },
  );
  hooks = await startProxy({
    target: consumer.url,
    before(req) {
      const result = checker.checkWebhook({ headers: req.headers, body: req.body });
      seen.push({ ...result, what: `webhook ${req.headers['svc-webhook-action']}`, probe: false });
      return undefined;
    },
  });
  provider.provider.dispatcher.createEndpoint(SANDBOX_PARTY, {
    name: 'consumer behind the contract check',
    url: `${hooks.url}${new URL(consumer.webhookUrl).pathname}`,
    secret: TEST_SECRET,
  });
}, 30_000);

afterAll(async () => {
  await consumer?.stop();
  await hooks?.close();
  await api?.close();
  await provider?.close();
});

async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${provider.url}/admin${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** A call through the checking proxy, as a client of the messaging API. */
async function call(
  path: string,
  init: { method?: string; body?: string; headers?: Record<string, string>; probe?: true } = {},
) {
  const res = await fetch(`${api.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: 'Bearer sandbox-token',
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.probe === undefined ? {} : { [PROBE]: '1' }),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await res.text();
  return { status: res.status, body: text };
}

async function consumerSide(messageId: string, side: 'inbound' | 'outbound') {
  const res = await fetch(`${consumer.url}/admin/messages/${messageId}`, {
    headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
  });
  if (res.status !== 200) return undefined;
  const view = (await res.json()) as Record<string, Record<string, string | null> | null>;
  return view[side] ?? undefined;
}

/** Waits until the consumer acknowledged the inbound side and heard it became final. */
function acknowledged(messageId: string) {
  return eventually(async () => {
    const side = await consumerSide(messageId, 'inbound');
    const final = ['delivered', 'failed'].includes(side?.deliveryStatus ?? '');
    return final && typeof side?.acknowledgedAt === 'string' && side;
  }, `the consumer's acknowledgement of ${messageId}`);
}

function statusEvent(messageId: string, action: string, newValue: string) {
  return eventually(
    async () =>
      published.find(
        (e) =>
          e.messageId === messageId &&
          e.action === action &&
          (e.data as { newValue?: string }).newValue === newValue,
      ),
    `${action} to ${newValue} for ${messageId}`,
  );
}

async function submit(body: unknown): Promise<string> {
  const res = await call('/transactions/submit-invoice', {
    method: 'POST',
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return (JSON.parse(res.body) as { messageId: string }).messageId;
}

describe('the simulator and the consumer keep to docs/openapi.json', () => {
  it('in every flow of the product, every call, answer and webhook is one the document allows', async () => {
    // Inbound invoices: plain, with a warning, with errors the network lets through, refused.
    const plain = await admin<{ messageId: string }>('POST', '/messages/inbound', {});
    const warned = await admin<{ messageId: string }>('POST', '/messages/inbound', {
      warnings: true,
    });
    await admin('PUT', `/participants/${DEMO_SUPPLIER.identifier}/settings`, {
      deliverDocumentsWithErrors: true,
    });
    const withErrors = await admin<{ messageId: string }>('POST', '/messages/inbound', {
      // A missing element only: a let-through line without its elements makes the UBL renderer
      // answer 500 (issue 28 rewrites it).
      invoice: { currencyCode: null },
    });
    const refused = await admin<{ messageId: string }>('POST', '/messages/inbound', {
      invoice: { invoiceNo: REFUSED_BY_IMPORTER },
    });
    for (const { messageId } of [plain, warned, withErrors]) {
      expect((await acknowledged(messageId)).deliveryStatus).toBe('delivered');
    }
    expect((await acknowledged(refused.messageId)).deliveryStatus).toBe('failed');

    // The document's 429 and 503, answered while the consumer works, and retried.
    await admin('POST', '/faults', { count: 1, mode: '429', retryAfterSeconds: 0 });
    await admin('POST', '/faults', { count: 1, mode: '503', pathPrefix: '/messages/' });
    const retried = await admin<{ messageId: string }>('POST', '/messages/inbound', {});
    expect((await acknowledged(retried.messageId)).deliveryStatus).toBe('delivered');

    // Tax reporting and lifecycle changes, and a parked message.
    const at = `/messages/${plain.messageId}`;
    await admin('POST', `${at}/tax-report`, { jurisdiction: 'Croatia', status: 'electronic' });
    await admin('POST', `${at}/payment`, { paidAmount: '1250.00', paymentDate: '2026-01-31' });
    await admin('POST', `/messages/${warned.messageId}/tax-report`, {
      jurisdiction: 'Slovakia',
      status: 'failed',
      errorCode: 'SK-17',
      errorMessage: 'Refused by the tax authority',
    });
    await admin('POST', `/messages/${warned.messageId}/rejection`, {
      rejectionType: 'MismatchAffectingTaxes',
      reason: 'Wrong VAT rate',
    });
    await statusEvent(plain.messageId, 'lifecycleStatusChanged', 'paid');
    await statusEvent(warned.messageId, 'lifecycleStatusChanged', 'rejected');
    const parked = await admin<{ messageId: string }>('POST', '/messages/inbound', {});
    await acknowledged(parked.messageId);
    await admin('POST', `/messages/${parked.messageId}/park`, { reason: 'Held for review' });
    await statusEvent(parked.messageId, 'messageStatusChanged', 'parked');

    // Outbound: a valid invoice to another participant, delivered; one that fails delivery;
    // acknowledgement responses (inbound messages the consumer imports); an invalid one.
    const sent = await submit(minimalInvoice(DEMO_SUPPLIER.identifier));
    await statusEvent(sent, 'messageStatusChanged', 'pendingdelivery');
    await admin('POST', `/messages/${sent}/deliver`, {});
    await statusEvent(sent, 'messageStatusChanged', 'delivered');
    const undeliverable = await submit(minimalInvoice(DEMO_SUPPLIER.identifier));
    await statusEvent(undeliverable, 'messageStatusChanged', 'pendingdelivery');
    await admin('POST', `/messages/${undeliverable}/fail`, {
      errorMessage: 'No endpoint found for the receiver',
      finalError: 'Gave up after retries',
      afterMs: 0,
    });
    await statusEvent(undeliverable, 'messageStatusChanged', 'failed');
    for (const response of ['MLR', 'eMLR']) {
      await admin('PUT', `/participants/${SANDBOX_PARTY}/settings`, {
        acknowledgementResponse: response,
      });
      await submit(minimalInvoice(DEMO_SUPPLIER.identifier));
    }
    await admin('PUT', `/participants/${SANDBOX_PARTY}/settings`, {
      acknowledgementResponse: 'none',
    });
    const broken = minimalInvoice(DEMO_SUPPLIER.identifier);
    (broken.invoice.invoiceLines[0] as Record<string, unknown>).quantity = 'three';
    (broken.invoice as Record<string, unknown>).issueDate = '2026-01-05';
    const invalid = await submit(broken);
    const failed = await statusEvent(invalid, 'messageStatusChanged', 'failed');
    const findings = parseValidationResults(
      (failed.data as { properties?: Record<string, string> }).properties?.validationResults,
    );
    expect(findings.map((f) => f.code)).toEqual(['schema', 'schema']);
    // A receiver that is no identifier at all: accepted, and failed by validation. Its
    // descriptor and events name the receiver as sent (docs/decisions.md#malformed-receiver).
    const misaddressed = minimalInvoice(DEMO_SUPPLIER.identifier);
    misaddressed.messageHandling.receiverIdentifier = 'nobody';
    const nobody = await submit(misaddressed);
    const refusedReceiver = await statusEvent(nobody, 'messageStatusChanged', 'failed');
    expect(
      (refusedReceiver.data as { properties?: Record<string, string> }).properties?.errorCode,
    ).toBe('schema');
    const nobodyDescriptor = await call(`/messages/${nobody}?transfer=outbound`);
    expect(nobodyDescriptor.status).toBe(200);
    expect(JSON.parse(nobodyDescriptor.body)).toMatchObject({
      validationStatus: 'rejected',
      destinationParty: { identifier: 'nobody' },
    });
    const nobodyCreated = published.find((e) => e.messageId === nobody && e.action === 'created');
    expect(nobodyCreated?.data).toMatchObject({ destinationParty: { identifier: 'nobody' } });

    // Calls a client makes that the consumer does not: the status poll, the submitted JSON,
    // the daily check, and the reconciliation job as cron runs it.
    expect((await call(`/messages/${sent}/status?transfer=outbound`)).status).toBe(200);
    expect((await call(`/transactions/submit-invoice?messageId=${sent}`)).status).toBe(200);
    expect((await call('/messages?status=pendingdelivery&transfer=inbound&limit=5')).status).toBe(
      200,
    );
    const reconcile = await runScript(join(ROOT, 'scripts/reconcile.ts'), {
      cwd: consumer.dir,
      env: {
        WEBHOOK_SECRETS: TEST_SECRET,
        API_BASE_URL: api.url,
        API_TOKEN: 'sandbox-token',
        DATABASE_URL: `sqlite:${join(consumer.dir, 'consumer.db')}`,
        DOCUMENTS_DIR: join(consumer.dir, 'documents'),
        SINK_JOURNAL_FILE: join(consumer.dir, 'status-journal.jsonl'),
        LOG_LEVEL: 'silent',
      },
    });
    expect(reconcile.code, reconcile.output).toBe(0);

    // A test event from the console, straight to the endpoint.
    const [endpoint] = provider.provider.dispatcher.listEndpoints(SANDBOX_PARTY);
    await admin('POST', `/participants/${SANDBOX_PARTY}/endpoints/${endpoint?.id}/test-event`, {});

    // Refusals: their answers must be listed too.
    const refusals = [
      await call('/messages', { headers: { authorization: 'Bearer wrong' }, probe: true }),
      await call(`/messages/${sent}?transfer=sideways`, { probe: true }),
      await call('/messages/no-such-message', { probe: true }),
      await call('/transactions/submit-invoice', { probe: true }),
      await call(`/transactions/submit-invoice?messageId=${invalid}`, { probe: true }),
      await call(`/messages/${invalid}/documents/core`, { probe: true }),
      await call(`/messages/${refused.messageId}/mark-as-delivered`, {
        method: 'POST',
        probe: true,
      }),
      await call(`/messages/${plain.messageId}/mark-as-failed`, {
        method: 'POST',
        body: JSON.stringify({ reason: 'late', code: 'X1' }),
        probe: true,
      }),
      await call('/transactions/submit-invoice', {
        method: 'POST',
        body: 'not json',
        headers: { 'content-type': 'text/plain' },
        probe: true,
      }),
    ];
    expect(refusals.map((r) => r.status)).toEqual([401, 400, 404, 400, 409, 409, 409, 400, 415]);

    // Every webhook the flows caused has reached the consumer through the check.
    await provider.provider.dispatcher.idle();

    const violations = seen.flatMap((s) => [
      ...(s.probe ? [] : s.requestViolations.map((v) => `${s.what}: request: ${v}`)),
      ...s.responseViolations.map((v) => `${s.what} -> ${s.status}: ${v}`),
    ]);
    expect(violations).toEqual([]);

    // The two invalid submissions (a quantity of "three", the receiver `nobody`) were let
    // through as the document says, and failed validation.
    expect(seen.filter((s) => s.acceptedInvalidBody)).toHaveLength(2);

    // Every operation of the document was used, and the statuses it lists for refusals met.
    const operations = [
      ...Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>)
        .flatMap((item) => Object.values(item))
        .map((op) => op.operationId),
      ...Object.values(doc.webhooks as Record<string, { post: { operationId: string } }>).map(
        (hook) => hook.post.operationId,
      ),
    ];
    const used = new Set(seen.map((s) => s.operationId));
    expect(operations.filter((id) => !used.has(id))).toEqual([]);
    const statuses = new Set(seen.map((s) => s.status));
    for (const status of [200, 201, 204, 400, 401, 404, 409, 415, 429, 503]) {
      expect(statuses, `no answer with status ${status}`).toContain(status);
    }
  }, 120_000);
});
