/**
 * Three consumer replicas on one PostgreSQL server, as an operator runs them behind a
 * round-robin gateway, while the server restarts and then fails over (issue 25). Under steady
 * signed webhook load and while the embedded provider delivers invoices, the server is stopped
 * for 5 s (`pg_ctl stop -m fast`, then started: a restart), then made read-only for 5 s (what a
 * demoted primary answers: SQLSTATE 25006). What an operator must see:
 *
 * - no replica exits;
 * - every webhook is answered 204 or 503 (the service retries a 503), within 5 s;
 * - every event answered 204 is stored;
 * - every replica's /readyz turns 503 within 5 s of losing the database, and 200 within 10 s
 *   of its return;
 * - afterwards every invoice is imported exactly once (the journal importer counts the
 *   importer under test's answers) and acknowledged at the simulator.
 *
 * The server is a private cluster of this file, so the suite's shared one stays up.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { pino } from 'pino';
import { request } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { EVENT_ID_HEADER } from '../../src/protocol/headers.ts';
import { type RunningProvider, startProvider } from '../../src/provider/provider.ts';
import { sandboxConsumerEnv } from '../support/consumer-env.ts';
import { CONSUMER_MAIN } from '../support/entry-points.ts';
import { createImportJournal } from '../support/importer-under-test.ts';
import { closeServer } from '../support/loopback-server.ts';
import {
  type Cluster,
  findPostgresBinaries,
  startPrivateCluster,
} from '../support/postgres-cluster.ts';
import { createTestProcesses, freePort, waitForHttp } from '../support/processes.ts';
import { providerAdmin } from '../support/provider-admin.ts';
import { describeIfAvailable } from '../support/requirement.ts';
import { stuckEvents, waitUntilSettled, webhooksToSend } from '../support/settled.ts';
import { testFolder } from '../support/test-folder.ts';
import { buildEnvelope, signedRequest } from '../support/webhooks.ts';

const SECRET = 'whsec_postgres_outage_secret';
const ADMIN_TOKEN = 'postgres-outage-test-admin-token-0123456789';
const PARTY = '0192:999999999';
const BIN = findPostgresBinaries();
/** How long each outage lasts. */
const OUTAGE_MS = 5_000;
/** The service gives up on an answer after 5 s (docs/retries.md). */
const ANSWER_WITHIN_MS = 5_000;
/** Signed webhooks the load sends per second, round robin over the replicas. */
const LOAD_PER_SECOND = 40;

let cluster: Cluster | undefined;
let provider: RunningProvider | undefined;
let gateway: Server | undefined;
const replicas = createTestProcesses();

afterEach(async () => {
  await replicas.killAll();
  await closeServer(gateway);
  await provider?.close();
  cluster?.stop();
});

interface Answer {
  status: number;
  ms: number;
  eventId: string | undefined;
}

/**
 * Headers that describe one connection, not the message (RFC 9110 7.6.1): a proxy does not pass
 * them on. Above all `Keep-Alive: timeout=65`, the replicas' idle timeout: passed to the load's
 * client it would keep gateway connections for 63 s (undici: the hint less 2 s) while the
 * gateway closes them after 5 s idle (Node's default), so one reused as it closed failed
 * ECONNRESET. Without it the gateway's own `Keep-Alive: timeout=5` reaches the client, which
 * lets go of an idle connection first.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** `headers` without the hop-by-hop ones, nor those their Connection header names. */
function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase()),
  );
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !named.has(name)),
  );
}

/**
 * The gateway: round robin over `ports`, each answer recorded with its event and how long it
 * took. A replica that does not answer (one that exited) would be a 502.
 */
function startGateway(ports: number[], answers: Answer[]): Promise<Server> {
  let next = 0;
  const server = createServer((req, res) => {
    const started = performance.now();
    const port = ports[next++ % ports.length] as number;
    const eventId = req.headers[EVENT_ID_HEADER] as string | undefined;
    const answer = (status: number) =>
      answers.push({ status, ms: performance.now() - started, eventId });
    const forwarded = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: req.url,
        method: req.method,
        headers: endToEnd(req.headers),
      },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, endToEnd(reply.headers));
        reply.pipe(res);
        reply.once('end', () => answer(reply.statusCode ?? 502));
      },
    );
    forwarded.on('error', () => {
      answer(502);
      if (!res.headersSent) res.writeHead(502).end();
    });
    req.pipe(forwarded);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Runs `sql` on a connection of its own. */
async function admin(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Runs `body` every `ms`, whether or not the last run has ended (a steady rate, as the service
 * sends); stop() resolves once every run has, with the errors they threw.
 */
function every(ms: number, body: () => Promise<unknown>) {
  const runs = new Set<Promise<unknown>>();
  const errors: string[] = [];
  const timer = setInterval(() => {
    const run = body()
      .catch((error: unknown) => void errors.push(String(error)))
      .finally(() => runs.delete(run));
    runs.add(run);
  }, ms);
  return {
    async stop(): Promise<string[]> {
      clearInterval(timer);
      await Promise.all(runs);
      return errors;
    },
  };
}

describeIfAvailable(
  'replicas on PostgreSQL through a restart and a failover',
  BIN === undefined ? 'no PostgreSQL server binaries (apt-get install postgresql)' : undefined,
  () => {
    it('no replica exits, webhooks get 204 or 503 in time, readiness follows the database, every invoice is imported once', async () => {
      const dir = testFolder('postgres-outage-');
      const journal = await createImportJournal(dir);
      const server = await startPrivateCluster(BIN as string);
      cluster = server;
      provider = await startProvider({ logger: pino({ level: 'silent' }), timeScale: 100 });
      const running = provider;

      const ports = await Promise.all([freePort(), freePort(), freePort()]);
      const exits: string[] = [];
      // Each replica's last words, for a failure message.
      const logs: (() => string)[] = [];
      const start = async (port: number) => {
        const replica = replicas.start(CONSUMER_MAIN, {
          cwd: dir,
          env: {
            PORT: String(port),
            ...sandboxConsumerEnv({
              secret: SECRET,
              apiBaseUrl: running.url,
              dir,
              databaseUrl: server.url,
            }),
            ADMIN_TOKEN,
            LOG_LEVEL: 'warn',
            CLAIM_LEASE_MS: '3000',
            WORKER_BACKOFF_MAX_MS: '2000',
            ...journal.env,
          },
        });
        logs.push(() => `replica on port ${port}:\n${replica.output().slice(-3000)}`);
        replica.child.once('exit', (code, signal) => {
          exits.push(
            `replica on port ${port} exited (${code ?? signal}):\n${replica.output().slice(-3000)}`,
          );
        });
        await waitForHttp(replica, `http://127.0.0.1:${port}/readyz`, 30_000);
      };
      await Promise.all(ports.map(start));
      const answers: Answer[] = [];
      gateway = await startGateway(ports, answers);
      const webhooks = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/webhooks`;
      running.provider.dispatcher.createEndpoint(PARTY, {
        name: 'gateway',
        url: webhooks,
        secret: SECRET,
      });

      // The traffic: signed test events at a steady rate (stored, never imported), and invoices
      // from the provider, whose events it delivers and retries through the gateway.
      const load = every(1000 / LOAD_PER_SECOND, async () => {
        const req = signedRequest(buildEnvelope({ test: true }), { secrets: [SECRET] });
        const res = await request(webhooks, {
          method: 'POST',
          headers: req.headers,
          body: req.body,
        });
        await res.body.text();
      });
      const post = providerAdmin(() => running.url);
      const messageIds: string[] = [];
      const invoices = every(150, async () => {
        const { messageId } = await post<{ messageId: string }>('POST', '/messages/inbound', {});
        messageIds.push(messageId);
      });

      /** Resolves once every replica's /readyz answers `status`; the milliseconds it took. */
      const readiness = async (status: number, withinMs: number) => {
        const since = performance.now();
        const took: number[] = [];
        await Promise.all(
          ports.map(async (port) => {
            for (;;) {
              const answer = await request(`http://127.0.0.1:${port}/readyz`, {
                signal: AbortSignal.timeout(withinMs),
              }).then(
                async (res) => {
                  await res.body.text();
                  return res.statusCode;
                },
                () => 0,
              );
              const ms = performance.now() - since;
              if (answer === status) {
                took.push(Math.round(ms));
                return;
              }
              // A replica that exited never answers: say that, with its last words.
              expect(exits).toEqual([]);
              if (ms > withinMs) {
                throw new Error(`replica on ${port}: /readyz not ${status} within ${withinMs} ms`);
              }
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
          }),
        );
        return took;
      };
      const timings: Record<string, number[]> = {};

      // Steady state first: some invoices through.
      await readiness(200, 10_000);
      const status = (id: string) => running.provider.model.messages.get(id).sides.inbound?.status;
      for (let i = 0; messageIds.filter((id) => status(id) === 'delivered').length < 5; i++) {
        expect(i, 'first invoices delivered').toBeLessThan(600);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }

      // 1. A restart: down for 5 s.
      const down = performance.now();
      await server.stopServer();
      timings.readyAfterStop = await readiness(503, 5_000);
      // The operator's routes say the store is away, they do not fail.
      const listing = await request(`http://127.0.0.1:${ports[0]}/admin/events?limit=1`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      await listing.body.text();
      expect(listing.statusCode).toBe(503);
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, OUTAGE_MS - (performance.now() - down))),
      );
      await server.startServer();
      timings.readyAfterStart = await readiness(200, 10_000);

      // 2. A failover to a server that is read-only for 5 s (a demoted primary), then writable.
      const readOnly = performance.now();
      await admin(server.url, 'ALTER SYSTEM SET default_transaction_read_only = on');
      await admin(server.url, 'SELECT pg_reload_conf()');
      timings.readyAfterReadOnly = await readiness(503, 5_000);
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, OUTAGE_MS - (performance.now() - readOnly))),
      );
      await admin(server.url, 'ALTER SYSTEM RESET default_transaction_read_only');
      await admin(server.url, 'SELECT pg_reload_conf()');
      timings.readyAfterWritable = await readiness(200, 10_000);

      expect(await invoices.stop()).toEqual([]);
      expect(await load.stop()).toEqual([]);
      console.log(`postgres-outage: readiness in ms ${JSON.stringify(timings)}`);

      // Everything settles: every invoice acknowledged, no event left open.
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        await waitUntilSettled(client, {
          undelivered: () => messageIds.filter((id) => status(id) !== 'delivered').length,
          sending: webhooksToSend(running.provider.dispatcher, PARTY),
        });
        expect(exits).toEqual([]);
        expect(messageIds.filter((id) => status(id) !== 'delivered')).toEqual([]);
        expect(webhooksToSend(running.provider.dispatcher, PARTY)()).toBe(0);
        const stuck = await stuckEvents(client);
        expect(stuck, stuck.length === 0 ? '' : logs.map((log) => log()).join('\n')).toEqual([]);

        // Every answer 204 or 503, in time; the outages did cost some 503s.
        const counts: Record<number, number> = {};
        for (const { status: s } of answers) counts[s] = (counts[s] ?? 0) + 1;
        console.log(
          `postgres-outage: ${answers.length} webhook answers ${JSON.stringify(counts)}, slowest ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms, ${messageIds.length} invoices`,
        );
        expect(answers.filter((a) => a.status !== 204 && a.status !== 503)).toEqual([]);
        expect(answers.filter((a) => a.ms >= ANSWER_WITHIN_MS)).toEqual([]);
        expect(counts[503]).toBeGreaterThan(0);

        // Every event answered 204 is stored.
        const accepted = [
          ...new Set(answers.filter((a) => a.status === 204).map((a) => a.eventId)),
        ];
        const { rows } = await client.query<{ event_id: string }>(
          'SELECT event_id FROM events WHERE event_id = ANY($1)',
          [accepted],
        );
        const stored = new Set(rows.map((row) => row.event_id));
        expect(accepted.filter((id) => id === undefined || !stored.has(id))).toEqual([]);
      } finally {
        await client.end();
      }

      // Each invoice imported exactly once: one `imported` answer, whatever else was retried.
      const imports = journal.byMessage();
      expect([...imports].filter(([, m]) => m.imported !== 1).map(([id]) => id)).toEqual([]);
      expect(messageIds.filter((id) => imports.get(id)?.imported !== 1)).toEqual([]);
      expect(exits).toEqual([]);
    }, 240_000);
  },
);
