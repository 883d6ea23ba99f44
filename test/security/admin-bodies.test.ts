/**
 * Admin request bodies bounded in shape (issue 37, point 4). Before, POST /admin/submissions
 * parsed whatever fit in its 1 MiB: a body of nested arrays parsed, then overflowed the stack in
 * JSON.stringify, a 500 logged at error level, where a webhook of that shape was a 400; and an
 * invoice of 1,001 members was stored. Here, on a real consumer: each shape limit is a 400 with
 * the webhook's problem type, nothing is stored and nothing logged as an error, and an invoice
 * at the limits still goes into the outbox.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { WEBHOOK_JSON_LIMITS } from '../../src/protocol/index.ts';
import { startTestConsumer, type TestConsumer } from '../support/consumer.ts';

const ADMIN_TOKEN = 'security-admin-bodies-admin-token-0123456';
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

let consumer: TestConsumer | undefined;
afterEach(async () => {
  await consumer?.stop();
  consumer = undefined;
});

/** An invoice as the ERP sends it, with `extra` under `invoice`, as raw JSON text. */
const invoiceWith = (invoiceNo: string, extra: string) =>
  `{"invoice":{"invoiceNo":${JSON.stringify(invoiceNo)},"extra":${extra}}}`;

async function submit(body: string) {
  const res = await request(`${consumer?.url}/admin/submissions`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body,
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: JSON.parse(text) };
}

describe('POST /admin/submissions', () => {
  it('answers JSON too deep, too wide or with a string too long 400 with the shape problem type, storing nothing', async () => {
    consumer = await startTestConsumer({ ADMIN_TOKEN });
    // 400,000 levels of arrays: under the 1 MiB body limit, far over the depth limit.
    const deep = invoiceWith('DEEP-1', `${'['.repeat(400_000)}${']'.repeat(400_000)}`);
    const wide = invoiceWith(
      'WIDE-1',
      JSON.stringify(Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`k${i}`, 0]))),
    );
    const long = invoiceWith('LONG-1', JSON.stringify('x'.repeat(300 * 1024)));
    for (const body of [deep, wide, long]) expect(Buffer.byteLength(body)).toBeLessThan(1 << 20);

    const cases = [
      [deep, 'depth', /deeper than allowed \(32\)/],
      [wide, 'keys', /more members than allowed \(1000\)/],
      [long, 'string', /longer than allowed \(262144\)/],
    ] as const;
    for (const [body, limit, detail] of cases) {
      const answer = await submit(body);
      expect(answer.status, limit).toBe(400);
      expect(answer.body).toMatchObject({
        type: `urn:webhook-consumer:json-shape:${limit}`,
        title: 'Body is JSON of an unsupported shape',
        detail: expect.stringMatching(detail),
      });
    }

    const list = await request(`${consumer.url}/admin/submissions`, { headers: auth });
    expect(((await list.body.json()) as { items: unknown[] }).items).toEqual([]);
    // A client's mistake, not the consumer's: nothing at error level.
    expect(consumer.logs.filter((line) => (line.level as number) >= 50)).toEqual([]);
  });

  it('takes an invoice right at the limits', async () => {
    consumer = await startTestConsumer({ ADMIN_TOKEN });
    // `{"invoice":{"extra":` opens two levels; the arrays fill the rest up to the limit.
    const arrays = WEBHOOK_JSON_LIMITS.maxDepth - 2;
    const answer = await submit(
      invoiceWith('EDGE-1', `${'['.repeat(arrays)}${']'.repeat(arrays)}`),
    );
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ invoiceNo: 'EDGE-1', state: 'queued' });
  });
});
