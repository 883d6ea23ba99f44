/** An event that keeps failing ends in dead-letter, visible and replayable by an operator. */
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  eventually,
  SANDBOX_ADMIN_TOKEN,
  type Sandbox,
  startSandboxForTest,
} from '../../support/sandbox.ts';

let sandbox: Sandbox;

async function consumerAdmin(method: 'GET' | 'POST', path: string) {
  const res = await request(`${sandbox.consumer.url}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text === '' ? undefined : JSON.parse(text) };
}

describe('dead-letter and replay', () => {
  it('dead-letters after WORKER_MAX_ATTEMPTS, then a replay delivers it', async () => {
    sandbox = await startSandboxForTest({ consumerEnv: { WORKER_MAX_ATTEMPTS: '2' } });
    // The core document cannot be fetched for now (for every message).
    await sandbox.admin('POST', '/faults', {
      count: 10_000,
      mode: '503',
      pathPrefix: '/messages/',
    });
    const messageId = await sandbox.sendInboundInvoice();

    const dead = await eventually(
      async () => {
        const { body } = await consumerAdmin('GET', '/events?state=dead');
        return body.items.find(
          (e: { messageId: string; action: string }) =>
            e.messageId === messageId && e.action === 'deliveryNotified',
        );
      },
      'the event to be dead-lettered',
      20_000,
    );
    expect(dead).toMatchObject({ state: 'dead', attempts: 2 });
    expect(dead.lastError).toContain('503');

    await sandbox.admin('DELETE', '/faults');
    expect((await consumerAdmin('POST', `/events/${dead.eventId}/replay`)).status).toBe(202);
    const status = async () =>
      (
        await sandbox.admin<{ sides: { inbound?: { status: string } } }>(
          'GET',
          `/messages/${messageId}`,
        )
      ).sides.inbound?.status;
    await eventually(async () => (await status()) === 'delivered', 'delivery after the replay');
    // The service shows delivered as soon as mark-as-delivered is answered; the consumer settles
    // the event a moment later, and until then a replay is refused (409, in processing).
    await eventually(async () => {
      const { body } = await consumerAdmin('GET', '/events?state=done');
      return body.items.some((e: { eventId: string }) => e.eventId === dead.eventId);
    }, 'the replayed event to be done');
    expect((await consumerAdmin('POST', `/events/${dead.eventId}/replay`)).status).toBe(202);
    expect((await consumerAdmin('POST', '/events/no-such-event/replay')).status).toBe(404);
  });

  it('keeps retrying, not dead-lettering, while the service rejects API_TOKEN', async () => {
    sandbox = await startSandboxForTest({ consumerEnv: { API_TOKEN: 'revoked-token' } });
    const messageId = await sandbox.sendInboundInvoice();
    const event = await eventually(async () => {
      const { body } = await consumerAdmin('GET', '/events');
      return body.items.find(
        (e: { messageId: string; action: string; attempts: number }) =>
          e.messageId === messageId && e.action === 'deliveryNotified' && e.attempts >= 2,
      );
    }, 'a second attempt');
    expect(event.state).not.toBe('dead');
    expect(event.lastError).toContain('401');
  });

  it('answers 404 for a message the consumer never heard of', async () => {
    sandbox = await startSandboxForTest();
    expect(
      (await consumerAdmin('GET', '/messages/00000000-0000-0000-0000-000000000000')).status,
    ).toBe(404);
  });
});
