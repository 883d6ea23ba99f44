/**
 * The example status sink (SINK_MODULE=erp-http) against the real ERP stand-in on a free port:
 * each notice stored once per Idempotency-Key however often it is delivered, an ERP that
 * answers 503 or cannot be reached makes deliver() throw, and the token is sent but never
 * appears in an error.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StatusChangeNotice } from '../../../../src/consumer/store/status-notice.ts';
import { createErpHttpSink } from '../../../../src/sinks/erp-http.ts';
import { type ErpStandin, startErpStandin } from '../../../support/erp-standin.ts';
import { freePort } from '../../../support/free-port.ts';

const TOKEN = 'sink-token-5f1c0e2a9d';
let erp: ErpStandin;
beforeAll(async () => {
  erp = await startErpStandin({ token: TOKEN });
});
afterAll(() => erp.close());
beforeEach(() => erp.reset());

function notice(id: string, overrides: Partial<StatusChangeNotice> = {}): StatusChangeNotice {
  return {
    id,
    messageId: `msg-${id}`,
    transfer: 'outbound',
    kind: 'lifecycle',
    formerValue: 'Sent',
    newValue: 'Delivered',
    occurredAt: '2026-11-26T09:00:00.000Z',
    source: 'event',
    properties: { errorCode: 'E1' },
    validationResults: null,
    ...overrides,
  } as StatusChangeNotice;
}

describe('the erp-http status sink', () => {
  it('posts each notice once per key, even when delivered twice', async () => {
    const sink = createErpHttpSink({ SINK_ERP_URL: `${erp.url}/`, SINK_ERP_TOKEN: TOKEN });
    await sink.deliver(notice('n-1'));
    await sink.deliver(notice('n-2'));
    await sink.deliver(notice('n-1'));
    expect(erp.statusChanges()).toEqual([
      { idempotencyKey: 'n-1', receivedAt: expect.any(String), notice: notice('n-1') },
      { idempotencyKey: 'n-2', receivedAt: expect.any(String), notice: notice('n-2') },
    ]);
    expect(erp.calls().map((call) => call.status)).toEqual([201, 201, 200]);
    // The listing, as a client of the stand-in sees it.
    const listed = await fetch(`${erp.url}/status-changes`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(listed.status).toBe(200);
    expect(
      ((await listed.json()) as Array<{ idempotencyKey: string }>).map((c) => c.idempotencyKey),
    ).toEqual(['n-1', 'n-2']);
  });

  it('is delivered after a lost reply, by delivering again', async () => {
    const sink = createErpHttpSink({ SINK_ERP_URL: erp.url, SINK_ERP_TOKEN: TOKEN });
    erp.fault({ mode: 'lose-reply', match: 'POST /status-changes' });
    await expect(sink.deliver(notice('lost'))).rejects.toThrow(/POST .*\/status-changes failed/);
    await sink.deliver(notice('lost'));
    expect(erp.statusChanges().map((c) => c.idempotencyKey)).toEqual(['lost']);
  });

  it('throws on a 503, naming the status, and stores nothing', async () => {
    const sink = createErpHttpSink({ SINK_ERP_URL: erp.url, SINK_ERP_TOKEN: TOKEN });
    erp.fault({ mode: '503', match: 'POST /status-changes' });
    await expect(sink.deliver(notice('n-1'))).rejects.toThrow(
      /the ERP answered 503: .*maintenance/,
    );
    expect(erp.statusChanges()).toEqual([]);
    await sink.deliver(notice('n-1'));
    expect(erp.statusChanges()).toHaveLength(1);
  });

  it('sends the token, and never puts it in an error', async () => {
    const errors: string[] = [];
    const capture = async (promise: Promise<void>) => {
      const error = await promise.then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      if (error === undefined) throw new Error('expected deliver to throw');
      errors.push(`${error.message} ${String(error.stack)} ${JSON.stringify(error)}`);
    };
    // Without the token, or with a wrong one: 401.
    await capture(createErpHttpSink({ SINK_ERP_URL: erp.url }).deliver(notice('a')));
    await capture(
      createErpHttpSink({ SINK_ERP_URL: erp.url, SINK_ERP_TOKEN: `${TOKEN}-wrong` }).deliver(
        notice('a'),
      ),
    );
    expect(errors[0]).toMatch(/the ERP answered 401/);
    expect(erp.statusChanges()).toEqual([]);
    // With it, stored: the token was sent.
    await createErpHttpSink({ SINK_ERP_URL: erp.url, SINK_ERP_TOKEN: TOKEN }).deliver(notice('a'));
    expect(erp.statusChanges()).toHaveLength(1);
    // A 503, and an ERP that is not there.
    erp.fault({ mode: '503', match: 'POST /status-changes' });
    await capture(
      createErpHttpSink({ SINK_ERP_URL: erp.url, SINK_ERP_TOKEN: TOKEN }).deliver(notice('b')),
    );
    const gone = `http://127.0.0.1:${await freePort()}`;
    await capture(
      createErpHttpSink({ SINK_ERP_URL: gone, SINK_ERP_TOKEN: TOKEN }).deliver(notice('c')),
    );
    expect(errors[3]).toMatch(/failed: ECONNREFUSED/);
    for (const error of errors) expect(error).not.toContain(TOKEN);
  });

  it('answers 400 to a status change without an Idempotency-Key', async () => {
    const answer = await fetch(`${erp.url}/status-changes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(notice('k')),
    });
    expect(answer.status).toBe(400);
    expect(erp.statusChanges()).toEqual([]);
  });
});
