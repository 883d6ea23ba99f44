/**
 * docker/compose.yaml with the sandbox override (docker/compose.sandbox.yaml) as a user brings
 * it up, with the settings docker/sandbox-env.sh generates: the Caddy gateway terminating TLS
 * with its local CA, the consumer, reconciliation on a schedule and the provider sandbox sending
 * its webhooks to the gateway over HTTPS. Runs with Compose v2 (`docker compose`) where it is
 * installed, else with v1 (`docker-compose`, Debian 12's), which reads the same files.
 */
import type { Readable } from 'node:stream';
import { Wait } from 'testcontainers';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { documentFolder } from '../../src/consumer/importer/file-importer.ts';
import { buildEnvelope, signedRequest } from '../support/webhooks.ts';
import { describeWithEngine } from './support/engine.ts';
import { json, waitFor } from './support/http.ts';
import { type SandboxCompose, upSandboxCompose } from './support/sandbox-compose.ts';

const PARTY = '0192:999999999';

describeWithEngine('the compose sandbox (docker/compose.yaml, compose.sandbox.yaml)', () => {
  let compose: SandboxCompose;

  const providerUrl = () => `http://127.0.0.1:${compose.env.PROVIDER_PUBLISHED_PORT}`;
  const operationsUrl = () => `http://127.0.0.1:${compose.env.CONSUMER_OPERATIONS_PORT}`;
  const container = (service: string) => compose.container(service);

  beforeAll(async () => {
    compose = await upSandboxCompose({
      files: ['compose.yaml', 'compose.sandbox.yaml'],
      ports: ['GATEWAY_HTTPS_PORT', 'CONSUMER_OPERATIONS_PORT', 'PROVIDER_PUBLISHED_PORT'],
      // Every 2 s instead of daily, so that a scheduled run shows within the test.
      env: { RECONCILE_SCHEDULE: '*/2 * * * * *' },
      waits: {
        provider: Wait.forLogMessage('Provider simulator listening'),
        'reconcile-schedule': Wait.forLogMessage('reconciliation scheduled'),
        // Not an HTTP wait: its ports are published on 127.0.0.1 only, and testcontainers
        // reaches published ports through the bridge's gateway when /.dockerenv exists (as on
        // these VMs). Up returns once it is healthy anyway: the provider waits for that.
        consumer: Wait.forLogMessage('consumer listening'),
        gateway: Wait.forHealthCheck(),
      },
    });
  }, 15 * 60_000);

  afterAll(async () => {
    await compose?.down();
  }, 60_000);

  it('carries an invoice provider -> HTTPS gateway -> consumer -> import -> acknowledgement', async () => {
    const admin = <T>(path: string, body?: unknown) =>
      json<T>(`${providerUrl()}/admin${path}`, {
        token: compose.setting('PROVIDER_ADMIN_TOKEN'),
        ...(body === undefined ? {} : { method: 'POST', body }),
      });
    const { messageId } = await admin<{ messageId: string }>('/messages/inbound', {});
    await waitFor('the provider shows the invoice delivered', async () => {
      const state = await admin<{ sides: { inbound: { status: string } } }>(
        `/messages/${messageId}`,
      );
      return state.sides.inbound.status === 'delivered';
    });

    const [endpoint] = await admin<{ url: string }[]>(`/participants/${PARTY}/endpoints`);
    expect(endpoint?.url).toBe('https://gateway:8443/webhooks');
    const deliveries = await admin<{ action: string; attempts: { statusCode?: number }[] }[]>(
      `/participants/${PARTY}/deliveries?messageId=${messageId}`,
    );
    const notified = deliveries.find((d) => d.action === 'deliveryNotified');
    expect(notified?.attempts.at(-1)?.statusCode).toBe(204);

    const listing = await container('consumer').exec([
      'ls',
      documentFolder('/data/documents', 'inbound', messageId),
    ]);
    expect(listing.output.split('\n')).toEqual(expect.arrayContaining(['core.xml']));
    const view = () =>
      json<{ inbound: { importedAt: string | null; acknowledgedAt: string | null } }>(
        `${operationsUrl()}/admin/messages/${messageId}`,
        { token: compose.setting('ADMIN_TOKEN') },
      );
    // The service shows delivered as soon as mark-as-delivered reaches it; the consumer records
    // the acknowledgement just after.
    await waitFor(
      'the consumer records the acknowledgement',
      async () => (await view()).inbound.acknowledgedAt !== null,
    );
    expect((await view()).inbound.importedAt).not.toBeNull();
  });

  it('serves only POST /webhooks at the gateway, over TLS from its local CA, body unchanged', async () => {
    const ca = (
      await container('provider').exec([
        'cat',
        '/gateway-data/caddy/pki/authorities/local/root.crt',
      ])
    ).output;
    // As `curl --resolve gateway:PORT:127.0.0.1` would: the name the certificate and the site
    // are for (SNI and Host), sent to the port published on this host.
    const dispatcher = new Agent({ connect: { ca, servername: 'gateway' } });
    const gateway = `https://127.0.0.1:${compose.env.GATEWAY_HTTPS_PORT}`;
    const send = (
      path: string,
      init: { method?: string; headers?: Record<string, string>; body?: string } = {},
    ) =>
      request(`${gateway}${path}`, {
        ...init,
        headers: { ...init.headers, host: `gateway:${compose.env.GATEWAY_HTTPS_PORT}` },
        dispatcher,
      }).then(async (res) => {
        await res.body.dump();
        return { status: res.statusCode };
      });
    try {
      const signed = signedRequest(buildEnvelope({ test: true, action: 'created' }), {
        secrets: [compose.setting('WEBHOOK_SECRETS')],
      });
      // A 204 means the consumer verified the signature over the bytes the gateway passed on.
      expect((await send('/webhooks', { method: 'POST', ...signed })).status).toBe(204);
      expect((await send('/webhooks', { method: 'POST', body: signed.body })).status).toBe(401);
      for (const path of ['/healthz', '/readyz', '/metrics', '/admin/events']) {
        expect((await send(path)).status, path).toBe(404);
      }
      expect((await send('/webhooks')).status).toBe(404);
    } finally {
      await dispatcher.close();
    }
  });

  it('runs reconciliation on its schedule, and once by `compose run --rm reconcile`', async () => {
    let logs = '';
    const stream = (await container('reconcile-schedule').logs()) as Readable;
    stream.on('data', (chunk) => {
      logs += String(chunk);
    });
    try {
      await waitFor('a scheduled run finished', () => logs.includes('reconciliation run finished'));
    } finally {
      stream.destroy();
    }
    expect(logs).toMatch(/reconcile: found=\d+ .* failed=0/);

    const once = await compose.run(['run', '--rm', 'reconcile']);
    expect(once).toMatch(/^reconcile: found=0 .* failed=0 alreadyImported=0$/m);
  });
});
