/**
 * docker/compose.postgres.yaml over docker/compose.yaml, with the sandbox override and the
 * settings docker/sandbox-env.sh generates, as a user brings it up: PostgreSQL, two consumer
 * replicas on it behind the Caddy gateway, and the provider sandbox sending its webhooks to the
 * gateway over HTTPS. The gateway spreads the webhooks over both replicas;
 * every invoice is still imported once and acknowledged, whichever replica got its events, and
 * while one replica is stopped the other takes them.
 */
import { Wait } from 'testcontainers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { documentFolder } from '../../src/consumer/importer/file-importer.ts';
import { describeWithEngine } from './support/engine.ts';
import { json, waitFor } from './support/http.ts';
import { type SandboxCompose, upSandboxCompose } from './support/sandbox-compose.ts';

const REPLICAS = ['consumer', 'consumer-2'] as const;
const PARTY = '0192:999999999';

interface LogLine {
  msg?: string;
  store?: string;
  outcome?: string;
  status?: number;
  messageId?: string;
}

/** The JSON lines a service logged (the consumer logs one object per line). */
function logLines(text: string): LogLine[] {
  return text.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });
}

describeWithEngine('the compose deployment on PostgreSQL (docker/compose.postgres.yaml)', () => {
  let compose: SandboxCompose;

  const providerAdmin = <T>(path: string, body?: unknown) =>
    json<T>(`http://127.0.0.1:${compose.env.PROVIDER_PUBLISHED_PORT}/admin${path}`, {
      token: compose.setting('PROVIDER_ADMIN_TOKEN'),
      ...(body === undefined ? {} : { method: 'POST', body }),
    });
  const operationsPort = (replica: (typeof REPLICAS)[number]) =>
    replica === 'consumer'
      ? compose.env.CONSUMER_OPERATIONS_PORT
      : compose.env.CONSUMER_2_OPERATIONS_PORT;
  const view = (replica: (typeof REPLICAS)[number], messageId: string) =>
    json<{ inbound: { importedAt: string | null; acknowledgedAt: string | null } }>(
      `http://127.0.0.1:${operationsPort(replica)}/admin/messages/${messageId}`,
      { token: compose.setting('ADMIN_TOKEN') },
    );
  /** Sends `count` invoices from the demo supplier; resolves once the service shows them delivered. */
  const deliverInvoices = async (count: number) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      ids.push((await providerAdmin<{ messageId: string }>('/messages/inbound', {})).messageId);
    }
    await waitFor(`${count} invoices delivered`, async () => {
      for (const id of ids) {
        const state = await providerAdmin<{ sides: { inbound: { status: string } } }>(
          `/messages/${id}`,
        );
        if (state.sides.inbound.status !== 'delivered') return false;
      }
      return true;
    });
    // The service shows delivered as soon as mark-as-delivered reaches it; the consumer records
    // the acknowledgement and logs it just after.
    await waitFor(`${count} acknowledgements logged`, async () => {
      const lines = Object.values(await replicaLogs()).flat();
      return ids.every((id) =>
        lines.some((l) => String(l.msg).startsWith('inbound message ') && l.messageId === id),
      );
    });
    return ids;
  };
  const replicaLogs = async () =>
    Object.fromEntries(
      await Promise.all(
        REPLICAS.map(async (replica) => [replica, logLines(await compose.logs(replica))] as const),
      ),
    ) as Record<(typeof REPLICAS)[number], LogLine[]>;

  beforeAll(async () => {
    compose = await upSandboxCompose({
      files: ['compose.yaml', 'compose.postgres.yaml', 'compose.sandbox.yaml'],
      ports: [
        'GATEWAY_HTTPS_PORT',
        'CONSUMER_OPERATIONS_PORT',
        'CONSUMER_2_OPERATIONS_PORT',
        'PROVIDER_PUBLISHED_PORT',
      ],
      // CI's stand-in (.ci/docker.sh); otherwise the file's default, pulled by the engine.
      env:
        process.env.POSTGRES_IMAGE === undefined
          ? {}
          : { POSTGRES_IMAGE: process.env.POSTGRES_IMAGE },
      waits: {
        postgres: Wait.forHealthCheck(),
        // Log waits, as in compose.test.ts: the operations ports are on 127.0.0.1 only.
        consumer: Wait.forLogMessage('consumer listening'),
        'consumer-2': Wait.forLogMessage('consumer listening'),
        gateway: Wait.forHealthCheck(),
        'reconcile-schedule': Wait.forLogMessage('reconciliation scheduled'),
        provider: Wait.forLogMessage('Provider simulator listening'),
      },
    });
  }, 15 * 60_000);

  afterAll(async () => {
    await compose?.down();
  }, 60_000);

  it('runs both replicas on the PostgreSQL database', async () => {
    const logs = await replicaLogs();
    for (const replica of REPLICAS) {
      const listening = logs[replica].find((line) => line.msg === 'consumer listening');
      expect(listening?.store, replica).toBe('postgres');
    }
  });

  it('spreads the webhooks over both replicas and imports each invoice once, acknowledged', async () => {
    const ids = await deliverInvoices(6);
    const logs = await replicaLogs();
    // Round robin at the gateway: each replica stored some of the events.
    for (const replica of REPLICAS) {
      const stored = logs[replica].filter((l) => l.msg === 'webhook' && l.outcome === 'stored');
      expect(stored.length, `webhooks stored by ${replica}`).toBeGreaterThan(0);
    }
    // One import per invoice over both replicas, whichever received its deliveryNotified.
    const imports = REPLICAS.flatMap((replica) =>
      logs[replica].filter((l) => String(l.msg).startsWith('inbound message ')),
    );
    for (const id of ids) {
      expect(
        imports.filter((l) => l.messageId === id).map((l) => l.outcome),
        id,
      ).toEqual(['imported']);
      // One store: both replicas answer the same record of the import and acknowledgement.
      const [first, second] = await Promise.all(REPLICAS.map((replica) => view(replica, id)));
      expect(first?.inbound.importedAt).not.toBeNull();
      expect(first?.inbound.acknowledgedAt).not.toBeNull();
      expect(second).toEqual(first);
    }
    // The replicas share the documents volume: every import is in one place.
    const manifests = ids.map(
      (id) => `${documentFolder('/data/documents', 'inbound', id)}/manifest.json`,
    );
    const listing = await compose.container('consumer-2').exec(['ls', ...manifests]);
    expect(listing.exitCode, listing.output).toBe(0);
  });

  it('takes the webhooks on the other replica while one is stopped', async () => {
    await compose.run(['stop', 'consumer']);
    try {
      const [id] = await deliverInvoices(1);
      const imports = logLines(await compose.logs('consumer-2')).filter(
        (l) => String(l.msg).startsWith('inbound message ') && l.messageId === id,
      );
      expect(imports.map((l) => l.outcome)).toEqual(['imported']);
      // The gateway leaves the stopped replica out once a request found it down: a webhook
      // that got the 502 went through at the service's first retry, a second later.
      type Delivery = { action: string; state: string; attempts: { statusCode?: number }[] };
      const deliveries = () =>
        providerAdmin<Delivery[]>(`/participants/${PARTY}/deliveries?messageId=${id}`);
      await waitFor('no webhook of the invoice still pending', async () =>
        (await deliveries()).every((d) => d.state !== 'pending'),
      );
      const sent = (await deliveries()).filter((d) => d.attempts.length > 0);
      expect(sent.map((d) => d.action)).toContain('deliveryNotified');
      for (const delivery of sent) {
        expect(delivery.state, delivery.action).toBe('succeeded');
        expect(delivery.attempts.length, delivery.action).toBeLessThanOrEqual(2);
      }
    } finally {
      await compose.run(['start', 'consumer']);
    }
  });
});
