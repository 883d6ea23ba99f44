/**
 * An importer's own HTTP call joins the invoice's trace with no tracing code of its own: the
 * importer runs inside the `import` span, and the maintained undici instrumentation (which the
 * SDK registers at the entry points) makes its fetch a span under it and sends the trace on
 * as a `traceparent` the ERP can follow. The consumer's own API calls get their per-attempt
 * HTTP spans the same way, under their call's span.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { SpanKind } from '@opentelemetry/api';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Importer } from '../../../src/consumer/importer/index.ts';
import { closeServer, listenOnLoopback } from '../../support/loopback-server.ts';
import { eventually, startSandboxForTest } from '../../support/sandbox.ts';
import { parentOf, useInMemoryTracing } from '../../support/tracing/in-memory-tracing.ts';

const tracing = useInMemoryTracing();
let undici: UndiciInstrumentation;

/** A stand-in ERP on loopback: the headers of each booking it received, by message id. */
const erpRequests = new Map<string, IncomingHttpHeaders>();
let erp: Server;
let erpUrl: string;

beforeAll(async () => {
  // Enabled as it is made (made disabled, it never records, even once enabled). Spans only
  // for requests made inside one of ours: the simulator's webhooks in this process are left
  // alone.
  undici = new UndiciInstrumentation({ requireParentforSpans: true });
  undici.setTracerProvider(tracing.provider);
  erp = createServer((req, res) => {
    erpRequests.set(req.url?.split('/').at(-1) ?? '', req.headers);
    req.resume();
    res.writeHead(201, { 'content-type': 'application/json' }).end('{"documentNo":"ERP-1"}');
  });
  erpUrl = await listenOnLoopback(erp);
});
afterAll(async () => {
  undici.disable();
  await closeServer(erp);
});

/** An importer as a forker writes one: a plain fetch to its ERP, nothing about tracing. */
const fetchingImporter: Importer = {
  async import({ messageId, signal }) {
    const answer = await fetch(`${erpUrl}/bookings/${messageId}`, { method: 'POST', signal });
    if (!answer.ok) throw new Error(`ERP answered ${answer.status}`);
    const { documentNo } = (await answer.json()) as { documentNo: string };
    return { status: 'imported', location: `erp:${documentNo}` };
  },
};

it("puts an importer's fetch to its ERP under the import span, and sends the trace on", async () => {
  const sandbox = await startSandboxForTest({ importer: fetchingImporter });
  const messageId = await sandbox.sendInboundInvoice();
  const importSpan = await eventually(
    async () =>
      tracing
        .spans()
        .find((s) => s.name === 'import' && s.attributes['invoicing.message.id'] === messageId),
    'the import span',
  );
  const { traceId, spanId } = importSpan.spanContext();
  const inTrace = () => tracing.inTrace(traceId);

  // The ERP was told the invoice's trace, and the span that called it.
  const headers = erpRequests.get(messageId);
  const [, sentTrace, sentSpan] = String(headers?.traceparent).split('-');
  expect(sentTrace).toBe(traceId);

  const erpCall = inTrace().find((s) => s.spanContext().spanId === sentSpan);
  expect(erpCall).toMatchObject({ kind: SpanKind.CLIENT });
  expect(parentOf(erpCall as ReadableSpan)).toBe(spanId);
  expect(erpCall?.attributes['http.response.status_code']).toBe(201);
  // The invoice's trace starts at its webhook.
  const webhook = inTrace().find((s) => s.name === 'webhook receive');
  expect(webhook?.attributes['invoicing.message.id']).toBe(messageId);

  // The consumer's own call to the API: one HTTP client span per attempt under the call's.
  const marked = await eventually(
    async () => inTrace().find((s) => s.name === 'POST mark-as-delivered'),
    'mark-as-delivered',
  );
  const attempts = inTrace().filter((s) => parentOf(s) === marked.spanContext().spanId);
  expect(attempts.map((s) => [s.kind, s.attributes['http.response.status_code']])).toEqual([
    [SpanKind.CLIENT, 204],
  ]);

  // The service's word of the delivery, back as a webhook, answered before the sandbox stops
  // (a webhook in flight at shutdown holds the listener's close).
  await eventually(
    async () => (await sandbox.view(messageId)).body?.inbound?.deliveryStatus === 'delivered',
    'the delivered status applied',
  );
});
