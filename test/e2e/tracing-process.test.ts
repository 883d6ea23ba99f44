/**
 * Tracing as an operator turns it on (docs/operating.md#tracing): the consumer started as
 * `npm start` starts it (its node flags, the tracing start-up among them), exporting to an
 * OTLP/HTTP receiver on loopback that decodes what a collector would get; and off, which loads
 * no SDK module and sends nothing.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { CONSUMER_MAIN, DEV_SCRIPT, npmScriptNodeFlags } from '../support/entry-points.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { createTestProcesses, freePort, waitForOutput } from '../support/processes.ts';
import { testFolder } from '../support/test-folder.ts';
import { buildEnvelope, postSigned } from '../support/webhooks.ts';

const processes = createTestProcesses();
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await processes.killAll();
  await receiver?.close();
  receiver = undefined;
});

/** What test/support/opentelemetry-modules.ts prints for each SDK module a process loads. */
const LOADED = 'opentelemetry module loaded:';
const MODULE_PROBE = new URL('../support/opentelemetry-modules.ts', import.meta.url).pathname;
/** A sender's trace, as the invoicing service (or anyone) may send it with a webhook. */
const SENDER_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SENDER_TRACEPARENT = `00-${SENDER_TRACE_ID}-b7ad6b7169203331-01`;
const SECRET = 'whsec_tracing_e2e_secret';
/** The consumer's own span of a webhook (src/consumer/http/webhook/request-span.ts). */
const WEBHOOK_SPAN_NAME = 'webhook receive';

/** `npm start` in a folder of its own, with `env` and nothing else; `probe` adds the module probe. */
async function startConsumer(env: Record<string, string>, options: { probe?: boolean } = {}) {
  const port = await freePort();
  const nodeArgs = npmScriptNodeFlags('start');
  const consumer = processes.start(CONSUMER_MAIN, {
    cwd: testFolder('tracing-e2e-'),
    nodeArgs: options.probe ? ['--import', MODULE_PROBE, ...nodeArgs] : nodeArgs,
    env: {
      PORT: String(port),
      WEBHOOK_SECRETS: SECRET,
      API_BASE_URL: 'http://127.0.0.1:9',
      API_TOKEN: 't',
      DATABASE_URL: 'sqlite:./data/c.db',
      ...env,
    },
  });
  await waitForOutput(consumer, 'consumer listening', 15_000);
  return { consumer, webhookUrl: `http://127.0.0.1:${port}/webhooks` };
}

/** One signed webhook carrying a sender's traceparent; resolves with the answer's status. */
function sendWebhook(url: string): Promise<number> {
  return postSigned(url, buildEnvelope(), {
    secret: SECRET,
    headers: { traceparent: SENDER_TRACEPARENT },
  });
}

describe('tracing in the consumer process', () => {
  it('exports the spans of a webhook to OTEL_EXPORTER_OTLP_ENDPOINT, flushed on SIGTERM', async () => {
    receiver = await startOtlpReceiver();
    const { consumer, webhookUrl } = await startConsumer({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'invoicing-consumer-e2e',
    });
    expect(await sendWebhook(webhookUrl)).toBe(204);
    const probe = await request(webhookUrl.replace('/webhooks', '/readyz'));
    await probe.body.text();
    // A path express routes (the webhook path is answered without it: app.ts).
    const unknown = await request(webhookUrl.replace('/webhooks', '/no-such-route'));
    await unknown.body.text();
    expect(unknown.statusCode).toBe(404);

    // The batch is exported by the shutdown, before the process exits: no waiting for the
    // exporter's 5 s schedule, and no span lost to a stop.
    consumer.child.kill('SIGTERM');
    expect(await consumer.exited()).toBe(0);
    const spans = receiver.spans();
    const server = spans.find((span) => span.kind === 2 && span.name === 'POST /webhooks');
    expect(server, spans.map((span) => span.name).join(', ')).toBeDefined();
    if (server === undefined) return;
    expect(server.serviceName).toBe('invoicing-consumer-e2e');
    expect(server.attributes['http.response.status_code']).toBe(204);
    expect(server.attributes['http.route']).toBe('/webhooks');
    // The sender's traceparent does not make our request a child of its trace.
    expect(server.traceId).not.toBe(SENDER_TRACE_ID);
    expect(server.parentSpanId).toBe('');
    expect(spans.some((span) => span.traceId === SENDER_TRACE_ID)).toBe(false);
    // A probe every few seconds is not an invoice's story.
    expect(spans.map((span) => span.name)).not.toContain('GET /readyz');
    // Express is an ES module import of a CommonJS package: its spans, in the trace of the
    // request it routed, prove the loader hook.
    const routed = spans.find(
      (span) => span.kind === 2 && span.attributes['http.response.status_code'] === 404,
    );
    const routedTrace = spans.filter((span) => span.traceId === routed?.traceId);
    expect(routedTrace.map((span) => span.scope)).toContain(
      '@opentelemetry/instrumentation-express',
    );
    const trace = spans.filter((span) => span.traceId === server.traceId);
    // The consumer's own span, in the server span's trace, keeps the sender's as a link.
    const webhook = trace.find((span) => span.name === WEBHOOK_SPAN_NAME);
    expect(webhook?.links).toContainEqual({
      traceId: SENDER_TRACE_ID,
      spanId: SENDER_TRACEPARENT.split('-')[2],
    });
  });

  it('prints spans with OTEL_TRACES_EXPORTER=console, the SDK loaded only then', async () => {
    const { consumer, webhookUrl } = await startConsumer(
      { OTEL_TRACES_EXPORTER: 'console' },
      { probe: true },
    );
    expect(await sendWebhook(webhookUrl)).toBe(204);
    await waitForOutput(consumer, "name: 'POST /webhooks'", 10_000);
    expect(consumer.output()).toContain(`${LOADED} /node_modules/@opentelemetry/sdk-node/`);
  });

  it.each([
    ['no OTEL_* variable', {}],
    ['OTEL_TRACES_EXPORTER=none', { OTEL_TRACES_EXPORTER: 'none' }],
    ['OTEL_SDK_DISABLED=true', { OTEL_SDK_DISABLED: 'true' }],
  ])('with %s, loads no SDK module and sends nothing', async (_case, otel) => {
    receiver = await startOtlpReceiver();
    // The endpoint stays unset without a variable (the case an operator has by default): the
    // others set it, to show that they win over it.
    const endpoint =
      Object.keys(otel).length === 0 ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const { consumer, webhookUrl } = await startConsumer({ ...endpoint, ...otel }, { probe: true });
    expect(await sendWebhook(webhookUrl)).toBe(204);
    consumer.child.kill('SIGTERM');
    expect(await consumer.exited()).toBe(0);
    expect(consumer.output()).not.toContain(LOADED);
    expect(receiver.requests()).toBe(0);
  });

  it('refuses an exporter it does not have, naming the variable', async () => {
    const consumer = processes.start(CONSUMER_MAIN, {
      cwd: testFolder('tracing-e2e-'),
      nodeArgs: npmScriptNodeFlags('start'),
      env: { OTEL_TRACES_EXPORTER: 'jaeger' },
    });
    expect(await consumer.exited()).toBe(2);
    expect(consumer.output()).toContain(
      'OTEL_TRACES_EXPORTER must list otlp, console, zipkin or be none (got "jaeger")',
    );
  });
});

describe('tracing in the sandbox', () => {
  it("npm run dev with OTEL_TRACES_EXPORTER=console prints the simulated sender's delivery and our request", async () => {
    const [port, providerPort] = [await freePort(), await freePort()];
    const dev = processes.start(DEV_SCRIPT, {
      cwd: testFolder('tracing-dev-'),
      nodeArgs: npmScriptNodeFlags('dev'),
      env: {
        PORT: String(port),
        PROVIDER_PORT: String(providerPort),
        OTEL_TRACES_EXPORTER: 'console',
      },
    });
    await waitForOutput(dev, 'Sandbox running', 20_000);
    const inbound = await request(`http://127.0.0.1:${providerPort}/admin/messages/inbound`, {
      method: 'POST',
    });
    await inbound.body.text();
    expect(inbound.statusCode).toBe(201);
    // A delivery attempt of the simulator's, then the consumer's answer to it.
    await waitForOutput(dev, "name: 'send webhook'", 15_000);
    await waitForOutput(dev, "name: 'POST /webhooks'", 15_000);
    expect(dev.output()).toContain("name: 'invoicing-provider-simulator'");
  });
});
