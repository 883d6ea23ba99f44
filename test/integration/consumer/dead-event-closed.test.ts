/**
 * An ERP outage longer than the worker's retry budget: the inbound message's deliveryNotified
 * event is dead-lettered after WORKER_MAX_ATTEMPTS transient import failures. Whoever later
 * acknowledges the message (reconciliation, or the worker with another event of it) closes
 * that dead event, so the dead count an operator alerts on falls back to 0, and the admin API
 * says why the event was closed and what became of the import.
 */
import { pino } from 'pino';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { type Importer, PermanentImportError } from '../../../src/consumer/importer/index.ts';
import type { ReconcileSummary } from '../../../src/consumer/reconcile/reconciler.ts';
import {
  eventually,
  SANDBOX_ADMIN_TOKEN,
  SANDBOX_PARTY,
  type Sandbox,
  startSandboxForTest,
} from '../../support/sandbox.ts';
import { createTestReconciler } from '../../support/test-reconciler.ts';

const ERP_DOWN = 'Error: ERP unreachable <- Error: connect ECONNREFUSED 10.0.0.7:8443';

let sandbox: Sandbox;

/** An ERP that is down until the test says otherwise, then takes or refuses invoices. */
function erp() {
  const state: { mode: 'down' | 'up' | 'refusing' } = { mode: 'down' };
  const importer: Importer = {
    async import(input) {
      if (state.mode === 'down') {
        const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:8443'), {
          code: 'ECONNREFUSED',
        });
        throw new Error('ERP unreachable', { cause: refused });
      }
      if (state.mode === 'refusing') {
        throw new PermanentImportError(`unknown buyer reference on ${input.descriptor.documentNo}`);
      }
      return { status: 'imported', location: `erp:${input.descriptor.documentNo}` };
    },
  };
  return { importer, state };
}

async function consumerGet(path: string) {
  const res = await request(`${sandbox.consumer.url}${path}`, {
    headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
  });
  const text = await res.body.text();
  expect(res.statusCode, text).toBe(200);
  return path === '/metrics' ? text : JSON.parse(text);
}

interface EventView {
  eventId: string;
  action: string;
  messageId: string;
  state: string;
  attempts: number;
  lastError: string | null;
  resolution: string | null;
}

const deadGauge = async () =>
  Number(/^inbox_dead_events (\d+)/m.exec(await consumerGet('/metrics'))?.[1]);

const inboundView = async (messageId: string) =>
  (await consumerGet(`/admin/messages/${messageId}`)).inbound;

/** Sends an invoice and waits for its deliveryNotified event to be dead-lettered. */
async function deadLettered(): Promise<{ messageId: string; dead: EventView }> {
  const messageId = await sandbox.sendInboundInvoice();
  const dead = await eventually<EventView>(async () => {
    const { items } = await consumerGet('/admin/events?state=dead');
    return (items as EventView[]).find(
      (e) => e.messageId === messageId && e.action === 'deliveryNotified',
    );
  }, 'the deliveryNotified event to be dead-lettered');
  return { messageId, dead };
}

function reconcile(importer: Importer, logs: Record<string, unknown>[] = []) {
  return createTestReconciler(sandbox.consumer, {
    importer,
    logger: pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line)) }),
  })();
}

describe('a dead event whose message is acknowledged later', () => {
  it('is closed by reconciliation: the dead count falls to 0 and the event says why', async () => {
    const { importer, state } = erp();
    sandbox = await startSandboxForTest({
      importer,
      consumerEnv: { WORKER_MAX_ATTEMPTS: '2', LOG_LEVEL: 'info' },
    });
    const { messageId, dead } = await deadLettered();

    // What the operator sees while the ERP is down: what failed, underneath.
    expect(dead).toMatchObject({
      state: 'dead',
      attempts: 2,
      lastError: ERP_DOWN,
      resolution: null,
    });
    expect(await deadGauge()).toBe(1);
    expect(await inboundView(messageId)).toMatchObject({
      importLocation: null,
      importAttempts: 2,
      importError: ERP_DOWN,
      acknowledgement: null,
      failureReason: null,
      importedAt: null,
    });
    const logs = sandbox.consumer.logs;
    const ofEvent = (msg: string) => logs.find((l) => l.msg === msg && l.eventId === dead.eventId);
    expect(ofEvent('event will be retried')).toMatchObject({ attempts: 1, error: ERP_DOWN });
    expect(ofEvent('event dead-lettered')).toMatchObject({ attempts: 2, error: ERP_DOWN });

    // The ERP is back; the nightly reconciliation finds the message still pending.
    state.mode = 'up';
    const reconcileLogs: Record<string, unknown>[] = [];
    const summary = await reconcile(importer, reconcileLogs);
    expect(summary).toEqual({
      found: 1,
      imported: 1,
      acknowledged: 1,
      rejected: 0,
      busy: 0,
      refreshed: 0,
      failed: 0,
      alreadyImported: 0,
    } satisfies ReconcileSummary);

    expect(await deadGauge()).toBe(0);
    const { items } = await consumerGet('/admin/events?state=done');
    const closed = (items as EventView[]).find((e) => e.eventId === dead.eventId);
    expect(closed).toMatchObject({ state: 'done', attempts: 2, lastError: ERP_DOWN });
    expect(closed?.resolution).toMatch(
      /^closed: message acknowledged \(delivered\) by reconciliation at \d{4}-\d\d-\d\dT[\d:.]+Z$/,
    );
    const documentNo = (await inboundView(messageId)).documentNo;
    expect(await inboundView(messageId)).toMatchObject({
      importLocation: `erp:${documentNo}`,
      importAttempts: 3,
      importError: null,
      acknowledgement: 'delivered',
      failureReason: null,
    });
    expect(reconcileLogs).toContainEqual(
      expect.objectContaining({
        msg: 'inbound message imported and acknowledged',
        messageId,
        outcome: 'imported',
        location: `erp:${documentNo}`,
      }),
    );
    expect(reconcileLogs).toContainEqual(
      expect.objectContaining({
        msg: 'dead events of an acknowledged message closed',
        messageId,
        eventIds: [dead.eventId],
      }),
    );
  });

  it('is closed as failed when reconciliation finds the importer refusing it', async () => {
    const { importer, state } = erp();
    sandbox = await startSandboxForTest({ importer, consumerEnv: { WORKER_MAX_ATTEMPTS: '2' } });
    const { messageId, dead } = await deadLettered();

    state.mode = 'refusing';
    expect(await reconcile(importer)).toMatchObject({ found: 1, rejected: 1, acknowledged: 0 });
    expect(await deadGauge()).toBe(0);
    const { items } = await consumerGet('/admin/events?state=done');
    expect((items as EventView[]).find((e) => e.eventId === dead.eventId)?.resolution).toMatch(
      /^closed: message acknowledged \(failed\) by reconciliation at /,
    );
    const view = await inboundView(messageId);
    expect(view).toMatchObject({
      acknowledgement: 'failed',
      failureReason: `unknown buyer reference on ${view.documentNo}`,
      importLocation: null,
      importAttempts: 3,
      // The last transient failure stays: no import ever succeeded.
      importError: ERP_DOWN,
    });
  });

  it('is closed by the worker when another event of the message gets it imported', async () => {
    const { importer, state } = erp();
    sandbox = await startSandboxForTest({ importer, consumerEnv: { WORKER_MAX_ATTEMPTS: '2' } });
    const { messageId, dead } = await deadLettered();

    // The service announces the message again (a retry an operator asked for at the service):
    // the same content under a new eventId.
    state.mode = 'up';
    const announced = sandbox.published.find(
      (e) => e.eventId === dead.eventId && e.party === SANDBOX_PARTY && e.transfer === 'inbound',
    );
    if (announced === undefined) throw new Error('the dead event was never published');
    const again = { ...announced, eventId: `${announced.eventId}-again` };
    expect(await sandbox.post(again)).toBe(204);

    await eventually(async () => (await deadGauge()) === 0, 'the dead count to fall to 0');
    const { items } = await consumerGet('/admin/events?state=done');
    const closed = (items as EventView[]).find((e) => e.eventId === dead.eventId);
    expect(closed).toMatchObject({ lastError: ERP_DOWN });
    expect(closed?.resolution).toMatch(
      new RegExp(
        `^closed: message acknowledged \\(delivered\\) by the worker handling event ${again.eventId} at `,
      ),
    );
    // The new event itself was simply handled.
    expect((items as EventView[]).find((e) => e.eventId === again.eventId)).toMatchObject({
      resolution: null,
    });
    expect(await inboundView(messageId)).toMatchObject({
      acknowledgement: 'delivered',
      importAttempts: 3,
      importError: null,
    });
  });
});
