/**
 * The image built from the Dockerfile, run as a user runs it: the consumer container with a
 * named volume on /data, the provider sandbox from the same image beside it on a network, and
 * the reconcile command as a one-off container. The steps run in order, as one deployment's
 * life: webhooks, an import, health, a stop, a run of reconcile while the consumer is down, and
 * a new container on the same volume.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  GenericContainer,
  getContainerRuntimeClient,
  type StartedTestContainer,
  Wait,
} from 'testcontainers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { documentFolder } from '../../src/consumer/importer/file-importer.ts';
import { buildEnvelope, signedRequest } from '../support/webhooks.ts';
import { describeWithEngine } from './support/engine.ts';
import { json, waitFor } from './support/http.ts';
import { buildImages, CONSUMER_IMAGE } from './support/images.ts';
import {
  consumerEnvBesideProvider,
  type SandboxNetwork,
  startSandboxNetwork,
} from './support/provider-container.ts';

const SECRET = `whsec_${randomBytes(16).toString('hex')}`;
const ADMIN_TOKEN = randomBytes(32).toString('hex');
const PROVIDER_ADMIN_TOKEN = randomBytes(16).toString('hex');
const PARTY = '0192:999999999';
// Compose and Kubernetes would set the same; the sandbox is reached over the test network.
const CONSUMER_ENV = {
  ...consumerEnvBesideProvider({ webhookSecret: SECRET, adminToken: ADMIN_TOKEN }),
  API_TIMEOUT_MS: '2000',
  // The image runs in production, where the importer must be chosen: here, on purpose, files.
  IMPORTER_MODULE: 'file',
};

describeWithEngine('the consumer image', () => {
  const volume = `invoicing-webhook-test-${randomUUID()}`;
  let sandbox: SandboxNetwork;
  let consumer: StartedTestContainer;
  let importedMessageId: string;

  const providerUrl = () => sandbox.providerUrl();
  const webhookUrl = () => `http://${consumer.getHost()}:${consumer.getMappedPort(3000)}/webhooks`;
  const operationsUrl = () => `http://${consumer.getHost()}:${consumer.getMappedPort(3001)}`;
  const providerAdmin = <T>(path: string, body?: unknown) =>
    json<T>(`${providerUrl()}/admin${path}`, {
      token: PROVIDER_ADMIN_TOKEN,
      ...(body === undefined ? {} : { method: 'POST', body }),
    });
  const inboundStatus = async (messageId: string) =>
    (await providerAdmin<{ sides: { inbound: { status: string } } }>(`/messages/${messageId}`))
      .sides.inbound.status;
  const inspect = async (container: StartedTestContainer) =>
    (await getContainerRuntimeClient()).container.getById(container.getId()).inspect();

  function startConsumer() {
    return sandbox
      .consumer(CONSUMER_IMAGE, CONSUMER_ENV)
      .withBindMounts([{ source: volume, target: '/data' }])
      .start();
  }

  beforeAll(async () => {
    await buildImages();
    sandbox = await startSandboxNetwork({
      webhookSecret: SECRET,
      adminToken: PROVIDER_ADMIN_TOKEN,
    });
    consumer = await startConsumer();
  }, 15 * 60_000);

  afterAll(async () => {
    await consumer?.stop();
    await sandbox?.stop();
    const client = await getContainerRuntimeClient();
    await client.container.dockerode
      .getVolume(volume)
      .remove()
      .catch(() => {});
  });

  it('answers a signed webhook 204 and an unsigned one 401, and nothing else on that port', async () => {
    const signed = signedRequest(buildEnvelope({ test: true, action: 'created' }), {
      secrets: [SECRET],
    });
    const post = (headers: Record<string, string>) =>
      fetch(webhookUrl(), { method: 'POST', headers, body: signed.body });
    expect((await post(signed.headers)).status).toBe(204);
    expect((await post({ 'content-type': 'application/json' })).status).toBe(401);
    // OPERATIONS_PORT is set in the image: probes and /admin never share the gateway's port.
    expect((await fetch(webhookUrl().replace('/webhooks', '/readyz'))).status).toBe(404);
  });

  it('imports an inbound invoice from the provider into the volume and acknowledges it', async () => {
    const { messageId } = await providerAdmin<{ messageId: string }>('/messages/inbound', {});
    await waitFor('the provider shows the invoice delivered', async () => {
      return (await inboundStatus(messageId)) === 'delivered';
    });
    const listing = await consumer.exec([
      'ls',
      documentFolder('/data/documents', 'inbound', messageId),
    ]);
    expect(listing.output.split('\n')).toEqual(expect.arrayContaining(['core.xml']));
    importedMessageId = messageId;
  });

  it('runs as a non-root user, and its HEALTHCHECK turns healthy', async () => {
    expect((await consumer.exec(['id', '-u'])).output.trim()).toBe('1000');
    // The first check runs one interval (10 s) after the start.
    await waitFor(
      'the container is healthy',
      async () => (await inspect(consumer)).State.Health?.Status === 'healthy',
      40_000,
    );
  });

  it('runs the consumer with the production memory settings of npm start', async () => {
    // The consumer (PID 1) got them from the image's environment...
    const environ = (await consumer.exec(['cat', '/proc/1/environ'])).output.split('\0');
    expect(environ).toEqual(
      expect.arrayContaining([
        'MALLOC_ARENA_MAX=2',
        'NODE_OPTIONS=--max-semi-space-size=2 --max-old-space-size=256 --import /app/dist/src/tracing/register.js',
      ]),
    );
    // ...and Node takes the V8 flags from NODE_OPTIONS: after churning through young objects,
    // the new space is about two 2 MB semi-spaces (64 MB in this image without the flag; V8
    // may count a few of its 256 KiB pages over the two: 9,175,040 bytes were measured once
    // with 4 MB ones, so the bound is twice the two), and the heap's limit is the old
    // generation's 256 MB and the new space (about 4 GB without).
    const churn = [
      'let keep = [];',
      "for (let i = 0; i < 2e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 5e4) keep = []; }",
      "const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');",
      'console.log(space.space_size, v8.getHeapStatistics().heap_size_limit);',
    ].join('\n');
    const { output, exitCode } = await consumer.exec(['node', '-e', churn]);
    expect(exitCode, output).toBe(0);
    const [newSpace, limit] = output.trim().split(' ').map(Number);
    expect(newSpace).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(limit).toBeGreaterThanOrEqual(256 * 1024 * 1024);
    expect(limit).toBeLessThanOrEqual(270 * 1024 * 1024);
  });

  it('has every command on PATH, copy-to-postgres among them', async () => {
    const commands = [
      'consumer',
      'reconcile',
      'reconcile-schedule',
      'replay',
      'submit-invoice',
      'copy-to-postgres',
      'provider',
      'healthcheck',
    ];
    const script = 'for c in "$@"; do command -v "$c"; done';
    const found = await consumer.exec(['sh', '-c', script, 'sh', ...commands]);
    expect(found.output.trim().split('\n')).toEqual(commands.map((c) => `/usr/local/bin/${c}`));
    // Without arguments it says how to call it, and changes nothing.
    const usage = await consumer.exec(['copy-to-postgres']);
    expect(usage.exitCode).toBe(2);
    expect(usage.output).toContain('--from sqlite:<path> --to postgres://');
  });

  it('drains on docker stop (SIGTERM) and exits 0 well before the stop timeout', async () => {
    const started = performance.now();
    await consumer.stop({ timeout: 30_000, remove: false });
    const seconds = (performance.now() - started) / 1000;
    const { State } = await inspect(consumer);
    expect(State.ExitCode).toBe(0);
    expect(seconds).toBeLessThan(5);
    const logs = await streamText(await consumer.logs());
    expect(logs).toContain('"signal":"SIGTERM"');
    expect(logs).toContain('"forced":false');
    await (await getContainerRuntimeClient()).container.getById(consumer.getId()).remove();
  });

  it('reconcile, as a one-off container, acknowledges a message the consumer missed, and exits 0', async () => {
    // The consumer is down: the provider's webhooks for this invoice fail and are retried.
    const { messageId } = await providerAdmin<{ messageId: string }>('/messages/inbound', {});
    let output = '';
    const reconcile = await new GenericContainer(CONSUMER_IMAGE)
      .withCommand(['reconcile'])
      .withNetwork(sandbox.network)
      .withEnvironment(CONSUMER_ENV)
      .withBindMounts([{ source: volume, target: '/data' }])
      .withLogConsumer((stream) => stream.on('data', (chunk) => (output += chunk)))
      // Fails the start unless the command exits 0.
      .withWaitStrategy(Wait.forOneShotStartup())
      .start();
    await reconcile.stop();
    expect(output).toContain('reconcile: found=1 imported=1 acknowledged=1');
    expect(await inboundStatus(messageId)).toBe('delivered');
  });

  it('keeps the inbox on the volume: a new container answers an old eventId 204 and imports nothing again', async () => {
    consumer = await startConsumer();
    const ops = (path: string) =>
      json<unknown>(`${operationsUrl()}${path}`, { token: ADMIN_TOKEN });
    const events = (await ops('/admin/events?limit=1000')) as {
      items: { eventId: string; action: string; messageId: string; state: string }[];
    };
    const old = events.items.find(
      (e) => e.action === 'deliveryNotified' && e.messageId === importedMessageId,
    );
    expect(old).toMatchObject({ state: 'done' });
    const before = (await ops(`/admin/messages/${importedMessageId}`)) as {
      inbound: { importedAt: string };
    };

    // The service redelivers with the same eventId; the descriptor is the message's own.
    const descriptor = await json<unknown>(`${providerUrl()}/messages/${importedMessageId}`, {
      token: 'sandbox-token',
    });
    const redelivery = buildEnvelope({
      eventId: old?.eventId ?? 'missing',
      action: 'deliveryNotified',
      messageId: importedMessageId,
      party: PARTY,
      data: descriptor as Record<string, unknown>,
    });
    const signed = signedRequest(redelivery, { secrets: [SECRET] });
    const res = await fetch(webhookUrl(), { method: 'POST', ...signed });
    expect(res.status).toBe(204);

    const metrics = await (await fetch(`${operationsUrl()}/metrics`)).text();
    expect(metrics).toMatch(/webhook_requests_total\{outcome="duplicate"\} 1\b/);
    const after = (await ops(`/admin/messages/${importedMessageId}`)) as typeof before;
    expect(after.inbound.importedAt).toBe(before.inbound.importedAt);
  });
});

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}
