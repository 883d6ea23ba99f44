/**
 * The webhook ingress fuzzed over real HTTP (fast-check, seeded): a consumer process takes
 * random and hostile requests (methods, paths, signature headers, credentials, encodings,
 * content types, random and hostile headers, broken framing, bodies that are not JSON, not
 * UTF-8, too large, cut off midway), with valid events and their duplicates among them, a few
 * at once. What a user would notice:
 *
 * - every answer is the one docs/how-it-works.md#answers gives for the request's class;
 * - the process never crashes and never answers 500;
 * - nothing is stored from a request that was not authentic and complete;
 * - every valid event is stored exactly once, byte for byte, however often it came.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { request as httpRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSignature } from '../../src/protocol/index.ts';
import {
  type ConsumerProcess,
  startConsumerProcess,
} from '../security/support/consumer-process.ts';
import { FUZZ_SEED } from './support/fuzz.ts';
import {
  bodyBytes,
  encode,
  expectedStatus,
  FUZZ_CREDENTIAL_TOKEN,
  FUZZ_MAX_BODY_BYTES,
  FUZZ_SECRET,
  type HostileRequest,
  hostileRequest,
  uniqueEventId,
} from './support/hostile-requests.ts';
import { exchange } from './support/raw-http.ts';

/** Batches of up to 12 requests sent at once; about 6.5 per batch. */
const BATCHES = Number(process.env.RELIABILITY_FUZZ_RUNS ?? 2000) / 8;

let consumer: ConsumerProcess;
let db: Database.Database;
let port: number;

beforeAll(async () => {
  consumer = await startConsumerProcess({
    WEBHOOK_SECRETS: FUZZ_SECRET,
    WEBHOOK_CREDENTIAL: `bearer:${FUZZ_CREDENTIAL_TOKEN}`,
    WEBHOOK_MAX_BODY_BYTES: String(FUZZ_MAX_BODY_BYTES),
    API_BASE_URL: 'http://127.0.0.1:9',
    API_TOKEN: 'reliability-fuzz-api-token',
    // Ingress only: the rows stay as stored, for the checks below.
    ROLE: 'ingress',
  });
  port = Number(new URL(consumer.url).port);
  db = new Database(join(consumer.dir, 'consumer.db'), { readonly: true, fileMustExist: true });
});
afterAll(async () => {
  db?.close();
  await consumer?.stop();
});

const storedBody = (eventId: string) =>
  (
    db.prepare('SELECT body FROM events WHERE event_id = ?').get(eventId) as
      | { body: Buffer }
      | undefined
  )?.body;

describe('the ingress, fuzzed over HTTP', () => {
  it('found by the fuzzer: a signed body that is not UTF-8 is refused, so two events never collapse into one', async () => {
    // Before: decoded leniently, both eventIds became "evt-\uFFFD"; the second was answered
    // 204 as a duplicate and never stored.
    const statuses: (number | undefined)[] = [];
    for (const byte of [0xff, 0xfe]) {
      const id = uniqueEventId('evt');
      const json = Buffer.from(
        JSON.stringify({
          eventId: `${id}-@`,
          action: 'created',
          transfer: 'inbound',
          occurredAt: new Date().toISOString(),
          party: '0192:999999999',
          messageId: 'm-1',
        }),
      );
      const at = json.indexOf('-@');
      const body = Buffer.concat([
        json.subarray(0, at + 1),
        Buffer.from([byte]),
        json.subarray(at + 2),
      ]);
      const t = Math.floor(Date.now() / 1000);
      const head = [
        'POST /webhooks HTTP/1.1',
        'Host: 127.0.0.1',
        `SVC-Webhook-Signature: t=${t},v0=${computeSignature(FUZZ_SECRET, t, body)}`,
        `Authorization: Bearer ${FUZZ_CREDENTIAL_TOKEN}`,
        `Content-Length: ${body.length}`,
        'Connection: close',
      ];
      const answer = await exchange(
        port,
        Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), body]),
      );
      statuses.push(answer.status);
      expect(JSON.parse(answer.body.toString()).title).toBe('Body is not UTF-8');
    }
    expect(statuses).toEqual([400, 400]);
  });

  it('answers every request as documented, stores exactly the valid events, once, and never falls over', async () => {
    /** Valid events sent so far (eventId -> body), for duplicates and the final count. */
    const valid = new Map<string, Buffer>();
    const seen = { requests: 0, aborted: 0, statuses: new Map<string, number>() };

    const send = async (request: HostileRequest, duplicateOf: number | undefined) => {
      const existing = [...valid.keys()];
      const duplicate =
        duplicateOf !== undefined && existing.length > 0 && request.body === 'envelope'
          ? existing[duplicateOf % existing.length]
          : undefined;
      const eventId = duplicate ?? uniqueEventId(request.envelope.eventId);
      const concrete = { ...request, envelope: { ...request.envelope, eventId } };
      // A duplicate is the service's retry: the same bytes, signed again.
      const body = duplicate !== undefined ? (valid.get(duplicate) as Buffer) : bodyBytes(concrete);
      const expected = expectedStatus(concrete, body);
      const bytes = encode(concrete, body, Date.now());
      const abortAfter =
        request.abortAt === undefined ? undefined : Math.floor(bytes.length * request.abortAt);
      const answer = await exchange(port, bytes, {
        head: request.method === 'HEAD',
        ...(abortAfter === undefined ? {} : { abortAfter }),
      });
      seen.requests += 1;
      const shown = answer.status === undefined ? 'closed' : String(answer.status);
      seen.statuses.set(shown, (seen.statuses.get(shown) ?? 0) + 1);
      const described = JSON.stringify({
        ...concrete,
        envelope: undefined,
        breakage: concrete.body === 'broken-envelope' ? concrete.breakage : undefined,
      });
      const what = `${shown} for ${described.slice(0, 600)}: ${answer.body.toString().slice(0, 300)}`;
      if (abortAfter !== undefined) {
        seen.aborted += 1;
        // Cut off: no answer, or the one a head-only decision gives.
        if (answer.status !== undefined) expect(answer.status, what).toBe(expected);
      } else if (expected === 'closed') {
        expect(answer.status, what).toBeUndefined();
      } else {
        expect(answer.status, what).toBe(expected);
      }

      const stored = storedBody(eventId);
      if (answer.status === 204) {
        expect(stored, `${what}: answered 204, not stored`).toEqual(body);
        valid.set(eventId, body);
      } else if (duplicate === undefined) {
        expect(stored, `${what}: stored`).toBeUndefined();
      }
    };

    const run = await fc.check(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            hostileRequest,
            fc.oneof(
              fc.constant(undefined),
              fc.constant(undefined),
              fc.constant(undefined),
              fc.nat(),
            ),
          ),
          {
            minLength: 1,
            maxLength: 12,
          },
        ),
        async (batch) => {
          await Promise.all(batch.map(([request, duplicateOf]) => send(request, duplicateOf)));
          expect(consumer.child.exitCode, consumer.output()).toBeNull();
        },
      ),
      { seed: FUZZ_SEED, numRuns: BATCHES, endOnFailure: true },
    );
    // The assertion that failed, not fast-check's print of the whole batch.
    if (run.failed) {
      throw new Error(`seed ${run.seed}, path ${run.counterexamplePath}: ${run.errorInstance}`);
    }

    // Still alive and serving; every valid event stored once, nothing else stored at all.
    const health = await httpRequest(`${consumer.url}/healthz`);
    await health.body.text();
    expect(health.statusCode).toBe(200);
    const rows = db.prepare('SELECT event_id FROM events').all() as { event_id: string }[];
    expect(rows.length).toBe(valid.size);
    expect(new Set(rows.map((r) => r.event_id))).toEqual(new Set(valid.keys()));
    const lines = consumer
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; status?: number });
    expect(lines.filter((l) => l.msg === 'unhandled error' || l.status === 500)).toEqual([]);

    console.log(
      `ingress fuzz (seed ${FUZZ_SEED}): ${seen.requests} requests, ${seen.aborted} cut off midway, ` +
        `${valid.size} valid events stored once; answers ${JSON.stringify(Object.fromEntries(seen.statuses))}`,
    );
    expect(seen.requests).toBeGreaterThan(BATCHES * 4);
    expect(valid.size).toBeGreaterThan(50);
  }, 120_000);
});
