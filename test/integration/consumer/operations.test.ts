import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestConsumer, TEST_SECRET, type TestConsumer } from '../../support/consumer.ts';
import { buildEnvelope, postSigned } from '../../support/webhooks.ts';

// ADMIN_TOKEN must be at least 32 characters.
const ADMIN_TOKEN = 'operations-test-admin-token-0123456789';

let consumer: TestConsumer;
afterEach(async () => {
  await consumer.stop();
});

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await request(`${consumer.url}${path}`, { headers });
  return { status: res.statusCode, text: await res.body.text(), headers: res.headers };
}

async function deliver(envelope: ReturnType<typeof buildEnvelope>) {
  expect(await postSigned(consumer.webhookUrl, envelope, { secret: TEST_SECRET })).toBe(204);
}

describe('health and metrics', () => {
  it('reports live and ready, and not ready when the store refuses writes', async () => {
    consumer = await startTestConsumer({}, { startWorker: true });
    expect((await get('/healthz')).status).toBe(200);
    expect(JSON.parse((await get('/readyz')).text)).toEqual({
      status: 'ready',
      checks: ['store', 'worker'],
    });

    consumer.store.db.exec(`CREATE TRIGGER sick BEFORE UPDATE ON health
      BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
    const res = await get('/readyz');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text).failures.store).toContain('disk I/O error');
    expect((await get('/healthz')).status).toBe(200);
  });

  it('is not ready while the worker is stopped', async () => {
    consumer = await startTestConsumer({}, { startWorker: false });
    const res = await get('/readyz');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text).failures).toEqual({ worker: 'worker is not running' });
  });

  it('counts webhook outcomes and inbox states in Prometheus text', async () => {
    consumer = await startTestConsumer();
    await deliver(buildEnvelope());
    await request(consumer.webhookUrl, { method: 'POST', body: '{}' }).then((r) => r.body.text());
    const { text, headers } = await get('/metrics');
    expect(headers['content-type']).toContain('text/plain');
    expect(text).toMatch(/webhook_requests_total\{outcome="stored"\} 1/);
    expect(text).toMatch(/webhook_requests_total\{outcome="unauthorized"\} 1/);
    expect(text).toMatch(/inbox_events\{state="pending"\} 1/);
    // Dead events apart from the open ones: retention deletes them, so the gauge stays small.
    expect(text).toMatch(/^inbox_dead_events 0$/m);
    expect(text).not.toMatch(/inbox_events\{state="dead"\}/);
  });

  it('shows how long the oldest pending event has waited, on the worker clock (issue 26)', async () => {
    // The signature's timestamp is checked on this clock too: it starts at the real time.
    let now = Date.now();
    consumer = await startTestConsumer({}, { now: () => now });
    const age = async (state: string) =>
      new RegExp(`inbox_oldest_event_age_seconds\\{state="${state}"\\} (\\S+)`).exec(
        (await get('/metrics')).text,
      )?.[1];
    expect(await age('pending')).toBe('0');

    await deliver(buildEnvelope());
    now += 90_000;
    // No worker runs here: the event waits, and nothing is in processing.
    expect(await age('pending')).toBe('90');
    expect(await age('processing')).toBe('0');
  });
});

describe('admin routes', () => {
  it('are 404 for every /admin path when ADMIN_TOKEN is unset', async () => {
    consumer = await startTestConsumer();
    expect((await get('/admin/events')).status).toBe(404);
    expect((await get('/admin/events', { authorization: 'Bearer anything' })).status).toBe(404);
    expect((await get('/admin/anything/else')).status).toBe(404);
  });

  it('answer 401 to a missing or wrong token', async () => {
    consumer = await startTestConsumer({ ADMIN_TOKEN });
    expect((await get('/admin/events')).status).toBe(401);
    expect((await get('/admin/events', { authorization: 'Bearer adm-2' })).status).toBe(401);
    const oneOff = `${ADMIN_TOKEN.slice(0, -1)}x`;
    expect((await get('/admin/events', { authorization: `Bearer ${oneOff}` })).status).toBe(401);
  });

  it('list inbox events newest first, filtered by state, limited', async () => {
    consumer = await startTestConsumer({ ADMIN_TOKEN });
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const first = buildEnvelope({ action: 'created' });
    const second = buildEnvelope({ action: 'deliveryNotified', test: true });
    await deliver(first);
    await deliver(second);

    const all = JSON.parse((await get('/admin/events', auth)).text);
    expect(all.items.map((e: { eventId: string }) => e.eventId)).toEqual([
      second.eventId,
      first.eventId,
    ]);
    expect(all.items[0]).toMatchObject({
      eventId: second.eventId,
      action: 'deliveryNotified',
      transfer: 'inbound',
      messageId: second.messageId,
      state: 'pending',
      attempts: 0,
      lastError: null,
      resolution: null,
      flag: 'test',
    });

    const limited = JSON.parse((await get('/admin/events?limit=1', auth)).text);
    expect(limited.items).toHaveLength(1);
    const done = JSON.parse((await get('/admin/events?state=done', auth)).text);
    expect(done.items).toEqual([]);
    expect((await get('/admin/events?state=bogus', auth)).status).toBe(400);
    expect((await get('/admin/events?limit=0', auth)).status).toBe(400);
    expect((await get('/admin/events?limit=ten', auth)).status).toBe(400);
  });

  it('page through the inbox with the cursor each page gives', async () => {
    consumer = await startTestConsumer({ ADMIN_TOKEN });
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const envelopes = Array.from({ length: 5 }, () => buildEnvelope());
    for (const envelope of envelopes) await deliver(envelope);

    const seen: string[] = [];
    let next: string | null = null;
    do {
      const query: string = next === null ? '' : `&after=${encodeURIComponent(next)}`;
      const page = JSON.parse((await get(`/admin/events?limit=2${query}`, auth)).text);
      seen.push(...page.items.map((e: { eventId: string }) => e.eventId));
      next = page.next;
    } while (next !== null && seen.length < 10);
    expect(seen).toEqual(envelopes.map((e) => e.eventId).reverse());

    const bad = await get('/admin/events?after=not-a-cursor', auth);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).detail).toMatch(/after/);
  });

  it("show a message side's statuses, its import and its acknowledgement", async () => {
    consumer = await startTestConsumer({ ADMIN_TOKEN });
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const messages = consumer.store.messages;
    const key = { messageId: 'm-view', transfer: 'inbound' as const };
    const at = Date.parse('2027-01-15T08:00:00.000Z');
    await messages.recordSnapshot(
      {
        ...key,
        documentNo: 'INV-7',
        validationStatus: 'approved',
        statuses: { delivery: 'pendingdelivery' },
        at,
        source: 'descriptor',
      },
      at,
    );
    await messages.markImportStarted(key, at + 1000);
    await messages.markImportFailed(
      key,
      'Error: ERP unreachable <- Error: connect ECONNREFUSED',
      at,
    );
    const view = async () => JSON.parse((await get('/admin/messages/m-view', auth)).text);
    expect((await view()).inbound).toMatchObject({
      importAttempts: 1,
      importError: 'Error: ERP unreachable <- Error: connect ECONNREFUSED',
      importLocation: null,
    });

    await messages.markImportStarted(key, at + 2000);
    await messages.markImported(key, 'erp:BK-2027-0042', at + 3000);
    await messages.markAcknowledged(key, 'delivered', null, at + 4000);
    expect(await view()).toEqual({
      messageId: 'm-view',
      inbound: {
        deliveryStatus: 'pendingdelivery',
        taxReportingStatus: null,
        lifecycleStatus: null,
        validationStatus: 'approved',
        documentNo: 'INV-7',
        importedAt: '2027-01-15T08:00:03.000Z',
        acknowledgedAt: '2027-01-15T08:00:04.000Z',
        lastEventAt: '2027-01-15T08:00:00.000Z',
        importLocation: 'erp:BK-2027-0042',
        importAttempts: 2,
        importError: null,
        acknowledgement: 'delivered',
        failureReason: null,
      },
      outbound: null,
    });

    // A rejection: what the service was told, and why.
    const refused = { messageId: 'm-refused', transfer: 'inbound' as const };
    await messages.markImportStarted(refused, at);
    await messages.markAcknowledged(refused, 'failed', 'unknown buyer reference', at + 1000);
    const rejected = JSON.parse((await get('/admin/messages/m-refused', auth)).text);
    expect(rejected.inbound).toMatchObject({
      importedAt: null,
      importLocation: null,
      importAttempts: 1,
      acknowledgement: 'failed',
      failureReason: 'unknown buyer reference',
    });
  });

  it('refuse to replay an event whose body retention dropped, saying so', async () => {
    consumer = await startTestConsumer({ ADMIN_TOKEN });
    const envelope = buildEnvelope();
    await deliver(envelope);
    consumer.store.db
      .prepare("UPDATE events SET state = 'done', body = x'' WHERE event_id = ?")
      .run(envelope.eventId);
    const res = await request(`${consumer.url}/admin/events/${envelope.eventId}/replay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.statusCode).toBe(409);
    expect(((await res.body.json()) as { detail: string }).detail).toMatch(/RETENTION_BODY_DAYS/);
    const listed = JSON.parse(
      (await get('/admin/events', { authorization: `Bearer ${ADMIN_TOKEN}` })).text,
    );
    expect(listed.items[0]).toMatchObject({ eventId: envelope.eventId, bodyKept: false });
  });
});
