/**
 * Submissions that go out once (docs/submissions.md) through SIGKILLs and lost replies: the
 * consumer runs as a process, the ERP sends invoices to its POST /admin/submissions, and the
 * process dies between a submit and its record, before and after the service acted, or at
 * seeded moments while replies are being lost. Each invoice ends with exactly one message at
 * the service, and the status journal holds one submission notice per invoice.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SINK_LEASE_MS } from '../../src/consumer/sink/sink-worker.ts';
import { type RunningProvider, startProvider } from '../../src/provider/provider.ts';
import { seededRandom } from '../../src/provider/seeded-random.ts';
import { sandboxConsumerEnv } from '../support/consumer-env.ts';
import { CONSUMER_MAIN } from '../support/entry-points.ts';
import { type RunningProxy, startProxy } from '../support/http-proxy.ts';
import {
  createTestProcesses,
  freePort,
  type RunningScript,
  waitForOutput,
} from '../support/processes.ts';
import { providerAdmin } from '../support/provider-admin.ts';
import { eventually } from '../support/sandbox.ts';
import { exampleInvoice, type SubmissionView } from '../support/submissions.ts';
import { testFolder } from '../support/test-folder.ts';

const SECRET = 'whsec_submission_crash_test';
const PARTY = '0192:999999999';
const ADMIN_TOKEN = 'submission-crash-admin-token-0123456789';
const SUBMIT = '/transactions/submit-invoice';

let dir: string;
let port: number;
let provider: RunningProvider;
let proxy: RunningProxy | undefined;
const running = createTestProcesses();
const admin = providerAdmin(() => provider.url);

async function startConsumerProcess(apiBaseUrl: string, deadlineMs = 1000) {
  const consumer = running.start(CONSUMER_MAIN, {
    cwd: dir,
    env: {
      PORT: String(port),
      ...sandboxConsumerEnv({ secret: SECRET, apiBaseUrl, dir }),
      // An invoice in hand is leased for API_DEADLINE_MS + SUBMISSION_LOOKUP_DELAY_MS + 1 s:
      // a killed process's invoice is taken over that long after its attempt.
      API_TIMEOUT_MS: String(deadlineMs),
      API_DEADLINE_MS: String(deadlineMs),
      ADMIN_TOKEN,
      CLAIM_LEASE_MS: '1000',
      SUBMISSION_LOOKUP_DELAY_MS: '300',
      LOG_LEVEL: 'info',
    },
  });
  await waitForOutput(consumer, 'consumer listening');
  return consumer;
}

async function kill(consumer: RunningScript) {
  consumer.child.kill('SIGKILL');
  expect(await consumer.exited()).toBeNull();
}

const routeWebhooks = () =>
  provider.provider.dispatcher.createEndpoint(PARTY, {
    name: 'consumer',
    url: `http://127.0.0.1:${port}/webhooks`,
    secret: SECRET,
  });

/** POST /admin/submissions as an ERP does: sent again until the consumer answers it. */
async function send(body: unknown): Promise<number> {
  for (;;) {
    try {
      const res = await request(`http://127.0.0.1:${port}/admin/submissions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.body.dump();
      if (res.statusCode === 200 || res.statusCode === 202) return res.statusCode;
      throw new Error(`POST /admin/submissions answered ${res.statusCode}`);
    } catch (error) {
      // The process is down (killed): the ERP tries again, the invoice number keys it.
      if (!/ECONNREFUSED|ECONNRESET|other side closed|SocketError/.test(String(error))) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function submissions(): Promise<SubmissionView[]> {
  const res = await request(`http://127.0.0.1:${port}/admin/submissions?limit=1000`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return ((await res.body.json()) as { items: SubmissionView[] }).items;
}

async function allSettled(count: number, ms = 30_000): Promise<SubmissionView[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const items = await submissions();
    const open = items.filter((s) => s.state !== 'submitted' && s.state !== 'refused');
    if (items.length === count && open.length === 0) return items;
    if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(open)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The service's outbound messages by invoice number, and the submits that reached its API. */
async function atTheService() {
  const res = await request(`${provider.url}/messages?transfer=outbound&limit=1000`, {
    headers: { authorization: 'Bearer sandbox-token' },
  });
  const { items } = (await res.body.json()) as { items: { documentNo: string }[] };
  const messages = new Map<string, number>();
  for (const item of items) messages.set(item.documentNo, (messages.get(item.documentNo) ?? 0) + 1);
  const calls = await admin<{ items: { method: string; path: string }[] }>('GET', '/api-calls');
  const submits = calls.items.filter((c) => c.method === 'POST' && c.path === SUBMIT).length;
  return { messages, submits };
}

/**
 * The submission notices the journal sink wrote, by invoice number, once it has `count`. A
 * kill that lands while the sink holds a notice leaves it leased for SINK_LEASE_MS: it reaches
 * the journal after that, so the wait allows for it.
 */
const journalSubmissions = (count: number) =>
  eventually(
    async () => {
      const written = readJournalSubmissions();
      return written.size >= count ? written : undefined;
    },
    `${count} submission notices in the journal`,
    SINK_LEASE_MS + 15_000,
  );

function readJournalSubmissions(): Map<string, string[]> {
  const byInvoice = new Map<string, string[]>();
  const file = join(dir, 'status-journal.jsonl');
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  for (const line of lines.filter((l) => l !== '')) {
    const notice = JSON.parse(line) as { kind: string; invoiceNo?: string; messageId: string };
    if (notice.kind !== 'submission' || notice.invoiceNo === undefined) continue;
    byInvoice.set(notice.invoiceNo, [...(byInvoice.get(notice.invoiceNo) ?? []), notice.messageId]);
  }
  return byInvoice;
}

beforeEach(async () => {
  dir = testFolder('submission-crash-');
  port = await freePort();
  provider = await startProvider({ logger: pino({ level: 'silent' }) });
});
afterEach(async () => {
  await running.killAll();
  await proxy?.close();
  proxy = undefined;
  await provider.close();
});

describe('submissions through SIGKILL', () => {
  it('killed after the service acted, before the reply was recorded: found by a lookup, never sent again', async () => {
    // The network between them holds the submit's answer: the service acted, the consumer
    // waits for a reply that never comes, and dies waiting.
    const answered: number[] = [];
    proxy = await startProxy({
      target: provider.url,
      after: async (req, status) => {
        if (req.method !== 'POST' || !req.url.startsWith(SUBMIT)) return;
        answered.push(status);
        await new Promise(() => {});
      },
    });
    // The submit is still awaited (3 s deadline) when the process is killed.
    const consumer = await startConsumerProcess(proxy.url, 3000);
    expect(await send(await exampleInvoice(provider.url, 'KILL-1'))).toBe(202);
    await eventually(async () => answered.length > 0, 'the service to answer the submit');
    expect(answered).toEqual([201]);
    await kill(consumer);

    await startConsumerProcess(provider.url);
    const [view] = await allSettled(1);
    expect(view).toMatchObject({ state: 'submitted', resolvedBy: 'lookup', attempts: 1 });
    const service = await atTheService();
    expect(service.messages.get('KILL-1')).toBe(1);
    expect(service.submits).toBe(1);
    expect((await journalSubmissions(1)).get('KILL-1')).toEqual([view?.messageId]);
  });

  it('killed while its submit had not reached the service: looked up, then sent once', async () => {
    const held: string[] = [];
    proxy = await startProxy({
      target: provider.url,
      before: async (req) => {
        if (req.method !== 'POST' || !req.url.startsWith(SUBMIT)) return undefined;
        held.push(req.url);
        return new Promise<undefined>(() => {});
      },
    });
    // The submit is still awaited (3 s deadline) when the process is killed.
    const consumer = await startConsumerProcess(proxy.url, 3000);
    await send(await exampleInvoice(provider.url, 'KILL-2'));
    await eventually(async () => held.length > 0, 'the submit to reach the network');
    expect(held).toHaveLength(1);
    await kill(consumer);

    await startConsumerProcess(provider.url);
    const [view] = await allSettled(1);
    expect(view).toMatchObject({ state: 'submitted', resolvedBy: 'reply', attempts: 2 });
    const service = await atTheService();
    expect(service.messages.get('KILL-2')).toBe(1);
    expect(service.submits).toBe(1);
  });

  it('seeded SIGKILLs while a third of the replies are lost: one message per invoice', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 29);
    const random = seededRandom(seed);
    const invoices = 24;
    const kills = [5, 11, 18];
    await admin('POST', '/faults', {
      mode: 'lose-reply',
      count: invoices,
      rate: 0.35,
      seed,
      pathPrefix: SUBMIT,
    });
    routeWebhooks();
    let consumer = await startConsumerProcess(provider.url);
    for (let i = 1; i <= invoices; i++) {
      const sending = send(await exampleInvoice(provider.url, `SEED-${i}`));
      if (kills.includes(i)) {
        // Somewhere between the request arriving and its submit being recorded.
        await new Promise((r) => setTimeout(r, Math.floor(random() * 40)));
        await kill(consumer);
        consumer = await startConsumerProcess(provider.url);
      }
      await sending;
    }
    const views = await allSettled(invoices);
    const service = await atTheService();
    const { items: unused } = await admin<{ items: { count: number }[] }>('GET', '/faults');
    const lost = invoices - (unused[0]?.count ?? 0);
    const byResolution = Object.groupBy(views, (v) => v.resolvedBy ?? 'none');
    const figures = {
      seed,
      invoices,
      kills: kills.length,
      repliesLost: lost,
      submitsAtService: service.submits,
      attempts: views.reduce((sum, v) => sum + v.attempts, 0),
      resolvedBy: Object.fromEntries(
        Object.entries(byResolution).map(([k, v]) => [k, v?.length ?? 0]),
      ),
    };
    console.log(`submission figures: ${JSON.stringify(figures)}`);

    for (let i = 1; i <= invoices; i++) {
      expect(service.messages.get(`SEED-${i}`), `SEED-${i} at the service`).toBe(1);
    }
    expect(views.every((v) => v.state === 'submitted')).toBe(true);
    const journal = await journalSubmissions(invoices);
    for (const view of views) expect(journal.get(view.invoiceNo)).toEqual([view.messageId]);
    expect(service.submits).toBeLessThanOrEqual(figures.attempts);
  }, 150_000);
});
