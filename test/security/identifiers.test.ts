/**
 * Identifiers are well-formed or refused, and another system's error text is stored and logged
 * printable (issue 26, point 4). One consumer over SQLite and one over PostgreSQL, each reused
 * by every case: the same request must get the same answer from both, since before this a NUL
 * was a 503 on PostgreSQL (retried by the service until exhausted) and a 204 on SQLite, and a
 * lone surrogate became U+FFFD in either, so two events collapsed into one.
 */

import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_READ_LIMIT } from '../../src/consumer/api/read-body.ts';
import type { StoredEvent } from '../../src/consumer/store/events.ts';
import type { WebhookEnvelope } from '../../src/protocol/index.ts';
import { startTestConsumer, type TestConsumer } from '../support/consumer.ts';
import {
  createTestDatabase,
  POSTGRES_MISSING,
  POSTGRES_URL,
  type TestDatabase,
} from '../support/postgres.ts';
import { describeIfAvailable } from '../support/requirement.ts';
import { buildEnvelope, signedRequest } from '../support/webhooks.ts';

const SECRET = 'whsec_security_identifiers_0123456789';
const ADMIN_TOKEN = 'security-identifiers-admin-token-0123';
const STORES = ['sqlite', 'postgres'] as const;
type StoreName = (typeof STORES)[number];

/** Strings no identifier can be; each is tried as eventId, action, party and messageId. */
const ODD: [string, string][] = [
  ['NUL', 'evt-\u0000-x'],
  ['another C0 control (SOH)', 'evt-\u0001-x'],
  ['DEL', 'evt-\u007f-x'],
  ['C1 control U+0085', 'evt-\u0085-x'],
  ['lone high surrogate', 'evt-\ud800-x'],
  ['lone low surrogate', 'evt-\udc00-x'],
  ['reversed surrogate pair', 'evt-\udc00\ud800-x'],
  ['ANSI escape', 'evt-\u001b[2J\u001b[31m-x'],
  ['257 characters', `evt-${'x'.repeat(253)}`],
];
const FIELDS = ['eventId', 'action', 'party', 'messageId'] as const;

/**
 * A 60 KB problem detail full of colour codes, line breaks, a NUL and a C1 escape; its JSON
 * still fits the client's error read limit, so the client parses it as a problem.
 */
const NOISY_LINE =
  '\u001b[1;31mE-042\u001b[0m invoice rejected:\r\n' +
  'the supplier identifier does not match the registered participant; '.repeat(4) +
  '\u0000\u009b2J\t';
const NOISY_PROBLEM = JSON.stringify({
  type: 'about:blank',
  title: '\u001b[31mUnprocessable\u001b[0m\n',
  status: 422,
  detail: NOISY_LINE.repeat(Math.ceil(60_000 / NOISY_LINE.length)),
});
// biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be stored or logged
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * True when some string in `value` (a parsed log line, deep) has a control character. A stack
 * trace's line breaks are the runtime's own; its first line (the error's message) counts.
 */
function holdsControl(value: unknown, key = ''): boolean {
  if (typeof value === 'string') {
    return CONTROL.test(key === 'stack' ? (value.split('\n')[0] ?? '') : value);
  }
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([name, inner]) => holdsControl(inner, name));
}

const consumers = new Map<StoreName, TestConsumer>();
const databases: TestDatabase[] = [];
let apiStandIn: Server;
const apiCalls: string[] = [];

async function post(consumer: TestConsumer, envelope: WebhookEnvelope) {
  const signed = signedRequest(envelope, { secrets: [SECRET] });
  // Only the signature header: the routing headers would carry the odd id, and undici (rightly)
  // refuses to send a NUL in a header. The consumer acts on the signed body alone.
  const res = await request(consumer.webhookUrl, {
    method: 'POST',
    body: signed.body,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'svc-webhook-signature': signed.headers['svc-webhook-signature'] as string,
    },
  });
  const text = await res.body.text();
  return { status: res.statusCode, detail: text === '' ? undefined : JSON.parse(text).detail };
}

async function admin(consumer: TestConsumer, method: 'GET' | 'POST', path: string) {
  const res = await request(`${consumer.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text === '' ? undefined : JSON.parse(text) };
}

async function storedIds(consumer: TestConsumer): Promise<string[]> {
  const page = await consumer.store.events.list({ limit: 1000 });
  return page.items.map((event) => event.eventId);
}

/** The same request on each store; the answers by store, so a difference shows in the diff. */
async function onEachStore<T>(act: (consumer: TestConsumer) => Promise<T>) {
  const answers: Partial<Record<StoreName, T>> = {};
  for (const [name, consumer] of consumers) answers[name] = await act(consumer);
  return answers;
}

describeIfAvailable(
  'identifiers on SQLite and PostgreSQL',
  POSTGRES_URL === '' ? POSTGRES_MISSING : undefined,
  () => {
    beforeAll(async () => {
      // The messaging API as a misbehaving gateway: every call refused with a 60 KB problem.
      apiStandIn = createServer((req, res) => {
        apiCalls.push(`${req.method} ${req.url}`);
        res.writeHead(422, { 'content-type': 'application/problem+json' }).end(NOISY_PROBLEM);
      });
      apiStandIn.listen(0, '127.0.0.1');
      await once(apiStandIn, 'listening');
      const { port } = apiStandIn.address() as AddressInfo;
      for (const name of STORES) {
        const database = name === 'postgres' ? await createTestDatabase() : undefined;
        if (database !== undefined) databases.push(database);
        const consumer = await startTestConsumer(
          {
            WEBHOOK_SECRETS: SECRET,
            ADMIN_TOKEN,
            API_BASE_URL: `http://127.0.0.1:${port}`,
            ...(database === undefined ? {} : { DATABASE_URL: database.url }),
          },
          { startWorker: true, worker: { pollIntervalMs: 20 } },
        );
        consumers.set(name, consumer);
      }
    });

    afterAll(async () => {
      for (const consumer of consumers.values()) await consumer.stop();
      for (const database of databases) await database.drop();
      apiStandIn?.close();
    });

    describe('a signed webhook with an odd identifier is answered 400 and not stored', () => {
      for (const field of FIELDS) {
        it.each(ODD)(`${field} with %s`, async (_what, odd) => {
          const before = await onEachStore(storedIds);
          const envelope = buildEnvelope({ [field]: odd });
          const answers = await onEachStore((consumer) => post(consumer, envelope));
          const expected = { status: 400, detail: expect.stringMatching(`^${field}: must `) };
          expect(answers).toEqual({ sqlite: expected, postgres: expected });
          expect(await onEachStore(storedIds)).toEqual(before);
        });
      }
    });

    it('two eventIds differing only in a lone surrogate are both refused, not merged into one', async () => {
      const before = await onEachStore(storedIds);
      const answers = await onEachStore(async (consumer) => [
        (await post(consumer, buildEnvelope({ eventId: 'evt-\ud800-X' }))).status,
        (await post(consumer, buildEnvelope({ eventId: 'evt-\udbff-X' }))).status,
      ]);
      expect(answers).toEqual({ sqlite: [400, 400], postgres: [400, 400] });
      expect(await onEachStore(storedIds)).toEqual(before);
    });

    it('unusual but well-formed identifiers are still stored (204), up to 256 characters', async () => {
      // Test events: stored and answered, and skipped by the worker.
      const ids = ['evt-ünïcödé-😀-名前', `evt-${'x'.repeat(252)}`, 'evt with spaces and "quotes"'];
      const answers = await onEachStore(async (consumer) => {
        const statuses: number[] = [];
        for (const eventId of ids) {
          statuses.push((await post(consumer, buildEnvelope({ eventId, test: true }))).status);
        }
        const stored = await storedIds(consumer);
        return { statuses, stored: ids.filter((id) => stored.includes(id)) };
      });
      const expected = { statuses: [204, 204, 204], stored: ids };
      expect(answers).toEqual({ sqlite: expected, postgres: expected });
    });

    describe('admin listing cursors must hold safe, non-negative integers', () => {
      const cursor = (text: string) => Buffer.from(text).toString('base64url');
      it.each([
        ['receivedAt past 2^53', cursor('9007199254740993.1')],
        ['arrival number past 2^53', cursor('1.9007199254740993')],
        ['arrival number past 2^63', cursor('1.9223372036854775808')],
        ['arrival number of 20 digits', cursor('1.99999999999999999999')],
        ['negative', cursor('-1.5')],
        ['non-numeric', cursor('a.b')],
        ['not base64url of a cursor', 'not-a-cursor!'],
      ])('%s: 400', async (_what, after) => {
        const answers = await onEachStore(async (consumer) => {
          const { status, body } = await admin(
            consumer,
            'GET',
            `/admin/events?after=${encodeURIComponent(after)}`,
          );
          return { status, detail: body?.detail };
        });
        const expected = {
          status: 400,
          detail: expect.stringMatching(/^after must be the next value of a previous page/),
        };
        expect(answers).toEqual({ sqlite: expected, postgres: expected });
      });
    });

    describe('admin path parameters with control characters are 400', () => {
      it.each([
        ['replay, NUL', 'POST', '/admin/events/evt%00x/replay'],
        ['replay, C1', 'POST', '/admin/events/evt%C2%85x/replay'],
        ['replay, ESC', 'POST', '/admin/events/evt%1Bx/replay'],
        ['message view, NUL', 'GET', '/admin/messages/msg%00x'],
      ] as const)('%s', async (_what, method, path) => {
        const answers = await onEachStore(async (consumer) => {
          const { status, body } = await admin(consumer, method, path);
          return { status, detail: body?.detail };
        });
        const expected = {
          status: 400,
          detail: expect.stringMatching(/^(eventId|messageId) must not contain control characters/),
        };
        expect(answers).toEqual({ sqlite: expected, postgres: expected });
      });
    });

    it("the API's 60 KB problem detail with ANSI codes is stored and logged short and clean", async () => {
      const answers = await onEachStore(async (consumer) => {
        const firstLog = consumer.logs.length;
        const envelope = buildEnvelope({
          action: 'deliveryNotified',
          transfer: 'inbound',
          messageId: randomUUID(),
          data: null,
        });
        expect((await post(consumer, envelope)).status).toBe(204);
        // 422 is a refusal: the event is dead-lettered at its first attempt.
        // The dead-letter line is written just after the event is settled: wait for both.
        const deadLettered = () =>
          consumer.logs.slice(firstLog).some((line) => line.msg === 'event dead-lettered');
        let event: StoredEvent | undefined;
        for (let tries = 0; tries < 200 && !(event?.state === 'dead' && deadLettered()); tries++) {
          await new Promise((resolve) => setTimeout(resolve, 25));
          event = await consumer.store.events.get(envelope.eventId);
        }
        const lastError = event?.lastError ?? '';
        const logged = consumer.logs.slice(firstLog);
        const serialized = logged.map((line) => JSON.stringify(line));
        return {
          state: event?.state,
          lastErrorClean: !CONTROL.test(lastError),
          lastErrorShort: lastError.length <= 1000,
          lastErrorSays: lastError.includes('E-042 invoice rejected: the supplier identifier'),
          logsClean: !logged.some((line) => holdsControl(line)),
          longestLogLine: Math.max(...serialized.map((line) => line.length)) < 8_000,
          deadLetterLogged: deadLettered(),
        };
      });
      const expected = {
        state: 'dead',
        lastErrorClean: true,
        lastErrorShort: true,
        lastErrorSays: true,
        logsClean: true,
        longestLogLine: true,
        deadLetterLogged: true,
      };
      expect(answers).toEqual({ sqlite: expected, postgres: expected });
      expect(apiCalls.length).toBeGreaterThan(0);
      expect(Buffer.byteLength(NOISY_PROBLEM)).toBeLessThan(ERROR_READ_LIMIT);
    });
  },
);
