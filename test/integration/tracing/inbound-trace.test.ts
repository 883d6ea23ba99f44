/**
 * One inbound invoice is one trace (docs/operating.md#tracing), against the embedded provider
 * over real HTTP, with the spans kept in memory: what an operator following a late invoice
 * sees in a trace view, and what must never be in it.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import type { StatusSink } from '../../../src/consumer/sink/define-sink.ts';
import type { StatusNotice } from '../../../src/consumer/store/status-notice.ts';
import { TEST_SECRET } from '../../support/consumer.ts';
import {
  eventually,
  SANDBOX_ADMIN_TOKEN,
  SANDBOX_SUBMIT_TOKEN,
  type Sandbox,
  startSandboxForTest,
} from '../../support/sandbox.ts';
import {
  carriedValues,
  parentOf,
  useInMemoryTracing,
} from '../../support/tracing/in-memory-tracing.ts';
import { buildEnvelope, postSigned } from '../../support/webhooks.ts';

const tracing = useInMemoryTracing();

/** In the invoice's order reference: in its documents, so in no span. */
const BODY_MARKER = 'PO-TRACE-SCAN-5c1e9';
const API_TOKEN = 'sandbox-token';

const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

function only(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = named(spans, name);
  if (found.length !== 1) {
    throw new Error(`expected one ${name} span, found ${found.length}: ${spanNames(spans)}`);
  }
  return found[0] as ReadableSpan;
}

function spanNames(spans: ReadableSpan[]): string {
  return spans.map((s) => s.name).join(', ');
}

/** The webhook span of the message's inbound deliveryNotified, once the request has ended. */
function notifiedWebhook(messageId: string): ReadableSpan | undefined {
  return tracing
    .spans()
    .find(
      (s) =>
        s.name === 'webhook receive' &&
        s.attributes['invoicing.message.id'] === messageId &&
        s.attributes['invoicing.action'] === 'deliveryNotified' &&
        s.attributes['invoicing.transfer'] === 'inbound',
    );
}

/**
 * Sends an inbound invoice and waits until its deliveryNotified event's turn has ended: the
 * spans of that trace, and the trace's webhook span.
 */
async function deliveredInvoice(sandbox: Sandbox) {
  const messageId = await sandbox.sendInboundInvoice({
    invoice: { orderReference: { documentNo: BODY_MARKER } },
  });
  const webhook = await eventually(async () => notifiedWebhook(messageId), 'the webhook span');
  const { traceId } = webhook.spanContext();
  const inTrace = () => tracing.inTrace(traceId);
  await eventually(
    async () =>
      inTrace().some(
        (s) => s.name === 'inbox process' && s.attributes['invoicing.outcome'] === 'done',
      ),
    'the event handled',
  );
  // The service's word of the delivery, back as a webhook, answered before the test goes on
  // (and before the sandbox stops: a webhook in flight at shutdown holds the listener's close).
  await eventually(
    async () => (await sandbox.view(messageId)).body?.inbound?.deliveryStatus === 'delivered',
    'the delivered status applied',
  );
  return { messageId, webhook, spans: inTrace() };
}

describe('the trace of an inbound invoice', () => {
  it('runs from the webhook through the inbox wait, claim, fetches and import to mark-as-delivered; the status reaches the sink in its own webhook trace', async () => {
    const noticed: StatusNotice[] = [];
    const sink: StatusSink = {
      async deliver(notice) {
        noticed.push(notice);
      },
    };
    const sandbox = await startSandboxForTest({ sink });
    const { messageId, webhook, spans } = await deliveredInvoice(sandbox);
    const ids = {
      'invoicing.message.id': messageId,
      'invoicing.action': 'deliveryNotified',
      'invoicing.transfer': 'inbound',
    };

    // The request: a server span of its own (no http instrumentation here), the root.
    expect(webhook.kind).toBe(SpanKind.SERVER);
    expect(parentOf(webhook)).toBeUndefined();
    expect(webhook.attributes).toMatchObject({
      ...ids,
      'invoicing.outcome': 'stored',
      'http.response.status_code': 204,
    });
    expect(webhook.attributes['invoicing.event.id']).toEqual(expect.any(String));
    expect(webhook.events.map((e) => e.name)).toEqual(['verified', 'stored', 'answered']);
    const eventId = webhook.attributes['invoicing.event.id'];
    const rootId = webhook.spanContext().spanId;

    // The wait in the inbox, under the request and linked to it; the claim ends it.
    const wait = only(spans, 'inbox wait');
    expect(parentOf(wait)).toBe(rootId);
    expect(wait.links.map((l) => l.context.spanId)).toEqual([rootId]);
    expect(wait.attributes).toMatchObject({ ...ids, 'invoicing.event.id': eventId });
    const claim = only(spans, 'inbox claim');
    expect(parentOf(claim)).toBe(wait.spanContext().spanId);

    // The event's turn, under the request too; the API calls, the import and the
    // acknowledgement under it.
    const process = only(spans, 'inbox process');
    expect(parentOf(process)).toBe(rootId);
    expect(process.kind).toBe(SpanKind.CONSUMER);
    expect(process.attributes).toMatchObject({ ...ids, 'invoicing.outcome': 'done' });
    const processId = process.spanContext().spanId;
    for (const name of ['GET core document', 'GET transaction', 'import', 'acknowledge']) {
      expect(parentOf(only(spans, name)), name).toBe(processId);
    }
    expect(only(spans, 'GET core document').attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.response.status_code': 200,
      'invoicing.api.attempts': 1,
    });
    expect(only(spans, 'import').attributes).toMatchObject({
      'invoicing.message.id': messageId,
      'invoicing.outcome': 'imported',
    });
    const acknowledge = only(spans, 'acknowledge');
    expect(acknowledge.attributes).toMatchObject({
      'invoicing.message.id': messageId,
      'invoicing.outcome': 'delivered',
    });
    const marked = only(spans, 'POST mark-as-delivered');
    expect(parentOf(marked)).toBe(acknowledge.spanContext().spanId);
    expect(marked.attributes['http.response.status_code']).toBe(204);

    // In time order: stored, then waited, then handled.
    const start = (s: ReadableSpan) => s.startTime[0] * 1e3 + s.startTime[1] / 1e6;
    expect(start(wait)).toBeGreaterThanOrEqual(start(webhook) - 1);
    expect(start(process)).toBeGreaterThanOrEqual(start(claim));
    expect(start(acknowledge)).toBeGreaterThan(start(only(spans, 'import')));
    // The status it brought reaches the status sink in the trace of the webhook that told it
    // (the service's status change, a request of its own): a notice span under that event's
    // turn, found by the same messageId.
    const notice = await eventually(
      async () =>
        tracing
          .spans()
          .find(
            (s) =>
              s.name === 'status notice deliver' &&
              s.attributes['invoicing.message.id'] === messageId &&
              noticed.some((n) => n.id === s.attributes['invoicing.notice.id']),
          ),
      'a status notice of the invoice delivered',
    );
    const all = tracing.spans();
    const turn = all.find((s) => s.spanContext().spanId === parentOf(notice));
    expect(turn?.name).toBe('inbox process');
    expect(turn?.attributes['invoicing.message.id']).toBe(messageId);
    const told = all.find((s) => s.spanContext().spanId === parentOf(turn as ReadableSpan));
    expect(told?.name).toBe('webhook receive');
    expect(told?.attributes['invoicing.message.id']).toBe(messageId);
    expect(told?.spanContext().traceId).toBe(notice.spanContext().traceId);
  });

  it('shows a retried API call: a 503, then the answer, as a retry event of one span', async () => {
    const sandbox = await startSandboxForTest();
    // The transaction's JSON: a call only the invoice's deliveryNotified makes (a status event
    // may refresh its message with GET /messages/:id, in a trace of its own).
    await sandbox.admin('POST', '/faults', { count: 1, mode: '503', pathPrefix: '/transactions/' });
    const { spans } = await deliveredInvoice(sandbox);
    const retried = spans.filter((s) => s.events.some((e) => e.name === 'retry'));
    expect(retried).toHaveLength(1);
    const [call] = retried as [ReadableSpan];
    expect(call.name).toBe('GET transaction');
    expect(call.attributes).toMatchObject({
      'http.response.status_code': 200,
      'invoicing.api.attempts': 2,
    });
    expect(call.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'retry',
        expect.objectContaining({
          'invoicing.api.attempt': 1,
          'invoicing.api.retry.reason': 'HTTP 503',
          'http.response.status_code': 503,
        }),
      ],
    ]);
  });

  it('says duplicate on the span of a webhook delivered again, in a trace of its own', async () => {
    const sandbox = await startSandboxForTest();
    const { messageId, webhook } = await deliveredInvoice(sandbox);
    const [notified] = sandbox.published.filter(
      (e) =>
        e.messageId === messageId && e.action === 'deliveryNotified' && e.transfer === 'inbound',
    );
    if (notified === undefined) throw new Error('no deliveryNotified published');

    expect(await sandbox.post(notified)).toBe(204);
    const again = tracing
      .spans()
      .filter(
        (s) =>
          s.name === 'webhook receive' &&
          s.attributes['invoicing.event.id'] === notified.eventId &&
          s !== webhook,
      );
    expect(again).toHaveLength(1);
    expect(again[0]?.attributes['invoicing.outcome']).toBe('duplicate');
    expect(again[0]?.events.map((e) => e.name)).toEqual(['verified', 'duplicate', 'answered']);
  });

  it("names each event's trace in the admin listing, where an operator looking for a late event starts", async () => {
    const sandbox = await startSandboxForTest();
    const { messageId, webhook } = await deliveredInvoice(sandbox);

    const res = await fetch(`${sandbox.consumer.url}/admin/events?limit=100`, {
      headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
    });
    const { items } = (await res.json()) as {
      items: { messageId: string; action: string; transfer: string; traceId: string | null }[];
    };
    const notified = items.find(
      (e) =>
        e.messageId === messageId && e.action === 'deliveryNotified' && e.transfer === 'inbound',
    );
    expect(notified?.traceId).toBe(webhook.spanContext().traceId);
    // Every event of the invoice in a trace of its own webhook's.
    const ofMessage = items.filter((e) => e.messageId === messageId);
    expect(ofMessage.length).toBeGreaterThan(1);
    expect(new Set(ofMessage.map((e) => e.traceId)).size).toBe(ofMessage.length);
    expect(ofMessage.every((e) => /^[0-9a-f]{32}$/.test(e.traceId ?? ''))).toBe(true);
  });

  it("takes a webhook's traceparent as a link, never as its parent", async () => {
    const sandbox = await startSandboxForTest({ webhooks: false });
    const sender = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const envelope = buildEnvelope();
    expect(
      await postSigned(sandbox.consumer.webhookUrl, envelope, {
        secret: TEST_SECRET,
        headers: { traceparent: sender },
      }),
    ).toBe(204);

    const span = only(
      tracing.spans().filter((s) => s.attributes['invoicing.event.id'] === envelope.eventId),
      'webhook receive',
    );
    expect(parentOf(span)).toBeUndefined();
    expect(span.spanContext().traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span.links).toEqual([
      expect.objectContaining({
        context: expect.objectContaining({
          traceId: '0af7651916cd43dd8448eb211c80319c',
          spanId: 'b7ad6b7169203331',
        }),
        attributes: { 'invoicing.link.source': 'sender' },
      }),
    ]);
    // The stored event carries our span's context, not the sender's.
    const stored = await sandbox.consumer.store.events.get(envelope.eventId);
    expect(stored?.traceParent).toContain(span.spanContext().traceId);
  });

  it('puts no secret and nothing of a body into any span', async () => {
    const sandbox = await startSandboxForTest();
    const { messageId } = await deliveredInvoice(sandbox);
    // A refused webhook too: a wrong signature, whose header quotes nothing of ours.
    const forged = buildEnvelope({ messageId });
    expect(
      await postSigned(sandbox.consumer.webhookUrl, forged, { secret: 'not-the-secret' }),
    ).toBe(401);

    const spans = tracing.spans();
    const refused = spans.filter((s) => s.attributes['http.response.status_code'] === 401);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.attributes).toMatchObject({
      'invoicing.outcome': 'unauthorized',
      'invoicing.refusal.reason': 'Invalid signature',
    });
    // Nothing of an unverified request: not even its (unsigned) ids.
    expect(refused[0]?.attributes['invoicing.message.id']).toBeUndefined();

    const secrets = [TEST_SECRET, API_TOKEN, SANDBOX_ADMIN_TOKEN, SANDBOX_SUBMIT_TOKEN];
    const values = carriedValues(spans);
    expect(values.length).toBeGreaterThan(50);
    for (const value of values) {
      for (const secret of [...secrets, BODY_MARKER]) expect(value).not.toContain(secret);
    }
  });

  it("records a failed import by its error's type, never its text (an ERP's answer, say)", async () => {
    let calls = 0;
    const sandbox = await startSandboxForTest({
      importer: {
        async import() {
          calls += 1;
          if (calls === 1) throw new Error(`ERP refused: <order>${BODY_MARKER}</order>`);
          return { status: 'imported', location: 'erp:1' };
        },
      },
    });
    const { spans } = await deliveredInvoice(sandbox);
    const imports = named(spans, 'import');
    expect(imports.map((s) => [s.status.code, s.attributes['error.type'] ?? null])).toEqual([
      [SpanStatusCode.ERROR, 'Error'],
      [SpanStatusCode.UNSET, null],
    ]);
    const turns = named(spans, 'inbox process');
    expect(turns.map((s) => s.attributes['invoicing.outcome'])).toEqual(['pending', 'done']);
    const text = JSON.stringify(
      spans.map((s) => [s.status, s.attributes, s.events.map((e) => e.attributes)]),
    );
    expect(text).not.toContain(BODY_MARKER);
  });

  it("writes the invoice's trace_id on a log line written during its import", async () => {
    const sandbox = await startSandboxForTest({ consumerEnv: { LOG_LEVEL: 'info' } });
    const { messageId, spans } = await deliveredInvoice(sandbox);
    const imported = sandbox.consumer.logs.find(
      (line) => line.msg === 'documents imported' && line.messageId === messageId,
    );
    const importSpan = only(spans, 'import');
    expect(imported).toMatchObject({
      trace_id: importSpan.spanContext().traceId,
      span_id: importSpan.spanContext().spanId,
    });
    // A line written outside any span has neither.
    const outside = sandbox.consumer.logs.find((line) => line.msg === 'consumer listening');
    expect(outside).toBeDefined();
    expect(outside).not.toHaveProperty('trace_id');
  });
});
