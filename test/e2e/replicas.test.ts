/**
 * Several consumer replicas behind a gateway, sharing one PostgreSQL database, as an operator
 * runs them: three consumer processes behind a round-robin proxy (a few lines of node:http),
 * the embedded provider sending inbound invoices and their status events through it, the
 * service's duplicates landing on other replicas, and one replica killed with SIGKILL halfway
 * and started again. Every invoice is imported exactly once (the journal importer counts the
 * importer under test's answers, importer-under-test.ts) and acknowledged, every event that
 * got a 204 is handled, and each message ends with the provider's statuses.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { sandboxConsumerEnv } from '../support/consumer-env.ts';
import { createImportJournal, importsByMessage } from '../support/importer-under-test.ts';
import { closeServer } from '../support/loopback-server.ts';
import {
  createTestDatabase,
  describeWithPostgres,
  type TestDatabase,
} from '../support/postgres.ts';
import { createTestProcesses, freePort, type RunningScript } from '../support/processes.ts';
import { providerAdmin } from '../support/provider-admin.ts';
import { type RecordingProvider, startRecordingProvider } from '../support/recording-provider.ts';
import { stuckEvents, waitUntilSettled, webhooksToSend } from '../support/settled.ts';
import { testFolder } from '../support/test-folder.ts';
import { postSigned } from '../support/webhooks.ts';

const SECRET = 'whsec_replicas_test_secret';
const PARTY = '0192:999999999';
const INVOICES = Number(process.env.REPLICAS_TEST_INVOICES ?? 300);

let database: TestDatabase | undefined;
let provider: RecordingProvider | undefined;
let proxy: Server | undefined;
const replicas = createTestProcesses();

afterEach(async () => {
  await replicas.killAll();
  await closeServer(proxy);
  await provider?.close();
  await database?.drop();
});

/** Round robin over `ports`; a replica that is down answers 502, and the service retries. */
function startProxy(ports: number[]): Promise<Server> {
  let next = 0;
  const server = createServer((req, res) => {
    const port = ports[next++ % ports.length] as number;
    const forwarded = httpRequest(
      { host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
    });
    req.pipe(forwarded);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describeWithPostgres('replicas on one PostgreSQL database', () => {
  it(`three replicas, one killed halfway: ${INVOICES} invoices imported exactly once`, async () => {
    const dir = testFolder('replicas-');
    const journal = await createImportJournal(dir);
    database = await createTestDatabase();
    // Webhook retries (1 min, 1 min, ...) pass a hundred times faster.
    provider = await startRecordingProvider({ timeScale: 100 });
    const running = provider;

    const ports = await Promise.all([freePort(), freePort(), freePort()]);
    const start = (port: number) =>
      replicas.startConsumer({
        cwd: dir,
        port,
        env: {
          ...sandboxConsumerEnv({
            secret: SECRET,
            apiBaseUrl: running.url,
            dir,
            databaseUrl: database?.url as string,
          }),
          LOG_LEVEL: 'warn',
          CLAIM_LEASE_MS: '3000',
          ...journal.env,
          TEST_IMPORTER_DELAY_MS: '5',
        },
      });
    const started = await Promise.all(ports.map(start));
    proxy = await startProxy(ports);
    const gateway = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/webhooks`;
    running.provider.dispatcher.createEndpoint(PARTY, {
      name: 'gateway',
      url: gateway,
      secret: SECRET,
    });

    // The traffic: invoices from the demo supplier, a tax report and a payment on some.
    const post = providerAdmin(() => running.url);
    const admin = (path: string, body: unknown = {}) =>
      post<{ messageId: string }>('POST', path, body);
    const messageIds: string[] = [];
    const send = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const { messageId } = await admin('/messages/inbound');
        messageIds.push(messageId);
        if (messageIds.length % 5 === 0) {
          await admin(`/messages/${messageId}/tax-report`, {
            jurisdiction: 'Croatia',
            status: 'electronic',
          });
        }
      }
    };
    await send(INVOICES / 2);

    // Halfway: one replica dies, and is started again on the same port.
    const victim = started[1] as RunningScript;
    victim.child.kill('SIGKILL');
    await victim.exited();
    await send(INVOICES / 2);
    await start(ports[1] as number);

    // The service's duplicates: a tenth of the events again, through the gateway.
    const duplicates = running.published.filter((e, i) => e.party === PARTY && i % 10 === 0);
    for (const event of duplicates) {
      expect([204, 502]).toContain(await postSigned(gateway, event, { secret: SECRET }));
    }

    const status = (id: string) => running.provider.model.messages.get(id).sides.inbound?.status;
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await waitUntilSettled(client, {
        undelivered: () => messageIds.filter((id) => status(id) !== 'delivered').length,
        sending: webhooksToSend(running.provider.dispatcher, PARTY),
      });
      expect(messageIds.filter((id) => status(id) !== 'delivered')).toEqual([]);
      expect(webhooksToSend(running.provider.dispatcher, PARTY)()).toBe(0);
      const stuck = await stuckEvents(client);
      const logs = replicas
        .started()
        .map(
          (r) => `replica ${r.child.pid} (exit ${r.child.exitCode}):\n${r.output().slice(-3000)}`,
        );
      expect(stuck, stuck.length === 0 ? '' : logs.join('\n')).toEqual([]);

      // Each message's statuses as the provider has them (a single replica's outcome).
      const { rows } = await client.query<{
        message_id: string;
        delivery_status: string;
        tax_reporting_status: string;
      }>(
        "SELECT message_id, delivery_status, tax_reporting_status FROM messages WHERE transfer = 'inbound'",
      );
      const views = new Map(rows.map((row) => [row.message_id, row]));
      for (const id of messageIds) {
        const side = running.provider.model.messages.get(id).sides.inbound;
        expect(views.get(id), id).toMatchObject({
          delivery_status: side?.status,
          tax_reporting_status: side?.taxReportingStatus,
        });
      }
    } finally {
      await client.end();
    }

    // Exactly one completed import per invoice, with a location. The killed replica may have
    // started one it never finished; the next import of that invoice was then told so.
    const entries = journal.entries();
    const imports = importsByMessage(entries);
    expect([...imports].filter(([, m]) => m.imported > 1)).toEqual([]);
    expect(messageIds.filter((id) => (imports.get(id)?.locations.length ?? 0) === 0)).toEqual([]);
    const imported = new Set([...imports].filter(([, m]) => m.imported === 1).map(([id]) => id));
    const cut = entries.filter((e) => e.phase === 'start' && e.pid === victim.child.pid);
    const finishedByVictim = new Set(
      entries
        .filter((e) => e.phase === 'end' && e.pid === victim.child.pid)
        .map((e) => e.messageId),
    );
    // An invoice without an `imported` end line was imported by the victim, killed after its
    // import got through but before its journal line: the next attempt found it
    // (`already_imported`), which is the import guarantee at work, not a lost import.
    const cutByKill = new Set(
      cut.filter((e) => !finishedByVictim.has(e.messageId)).map((e) => e.messageId),
    );
    const foundInPlace = new Set(
      entries
        .filter((e) => e.phase === 'end' && e.status === 'already_imported')
        .map((e) => e.messageId),
    );
    expect(
      messageIds.filter((id) => !imported.has(id) && !(cutByKill.has(id) && foundInPlace.has(id))),
    ).toEqual([]);
    for (const start of cut.filter((e) => !finishedByVictim.has(e.messageId))) {
      const after = entries.filter(
        (e) => e.phase === 'start' && e.messageId === start.messageId && e.pid !== victim.child.pid,
      );
      expect(
        after.every((e) => e.previouslyAttempted),
        start.messageId,
      ).toBe(true);
    }
  }, 240_000);
});
