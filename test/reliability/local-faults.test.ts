/**
 * Local faults are not the message's fault: when the documents folder is full (ENOSPC) or not
 * writable (EROFS), the invoice is fine and the service must not be told otherwise. The
 * consumer retries; if the fault outlasts WORKER_MAX_ATTEMPTS it dead-letters the event with an
 * alert in the log that says what to fix, and never calls mark-as-failed. When the fault clears
 * in time the invoice goes through by itself; after a dead-letter, a replay takes it.
 *
 * DOCUMENTS_DIR is a 1 MiB tmpfs of its own: the kernel's own errors, no mock.
 */
import { request } from 'undici';
import { expect, it } from 'vitest';
import {
  eventually,
  SANDBOX_ADMIN_TOKEN,
  type Sandbox,
  startSandboxForTest,
} from '../support/sandbox.ts';
import {
  describeWithSmallDisk,
  mountSmallDiskForTest,
  type SmallDisk,
} from './support/small-disk.ts';

const MAX_ATTEMPTS = 3;

async function start(): Promise<{ sandbox: Sandbox; disk: SmallDisk }> {
  const disk = mountSmallDiskForTest(1024 * 1024);
  const sandbox = await startSandboxForTest({
    consumerEnv: { DOCUMENTS_DIR: disk.path, WORKER_MAX_ATTEMPTS: String(MAX_ATTEMPTS) },
  });
  return { sandbox, disk };
}

async function consumerEvents(s: Sandbox) {
  const res = await request(`${s.consumer.url}/admin/events?limit=1000`, {
    headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
  });
  return (
    (await res.body.json()) as {
      items: {
        eventId: string;
        messageId: string;
        action: string;
        state: string;
        attempts: number;
        lastError: string | null;
      }[];
    }
  ).items;
}

const deliveryEvent = async (s: Sandbox, messageId: string) =>
  (await consumerEvents(s)).find(
    (e) => e.messageId === messageId && e.action === 'deliveryNotified',
  );

const providerStatus = async (s: Sandbox, messageId: string) =>
  (await s.admin<{ sides: { inbound?: { status: string } } }>('GET', `/messages/${messageId}`))
    .sides.inbound?.status;

const markedFailed = (s: Sandbox) =>
  s.provider.provider.callLog.list().filter((c) => c.path.endsWith('/mark-as-failed'));

describeWithSmallDisk('a documents folder that is full or not writable', () => {
  it.each([
    ['full', (d: SmallDisk) => d.fill(), (d: SmallDisk) => d.free()],
    ['read-only', (d: SmallDisk) => d.readOnly(true), (d: SmallDisk) => d.readOnly(false)],
  ] as const)(
    '%s: retried, then dead-lettered with an alert, never marked failed; a replay takes it once fixed',
    async (_name, breakDisk, fixDisk) => {
      const { sandbox: s, disk: d } = await start();
      breakDisk(d);
      const messageId = await s.sendInboundInvoice();

      const dead = await eventually(
        async () => {
          const event = await deliveryEvent(s, messageId);
          return event?.state === 'dead' ? event : undefined;
        },
        'the event to be dead-lettered',
        15_000,
      );
      // Every allowed attempt was made: a local fault is not a reason to give up early.
      expect(dead.attempts).toBe(MAX_ATTEMPTS);
      expect(markedFailed(s)).toEqual([]);
      expect(await providerStatus(s, messageId)).toBe('pendingdelivery');
      const alert = s.consumer.logs.find(
        (l) => l.msg === 'event dead-lettered' && l.messageId === messageId,
      );
      expect(alert).toMatchObject({
        level: 50,
        localFault: expect.stringMatching(/DOCUMENTS_DIR/),
      });

      fixDisk(d);
      const replayed = await request(`${s.consumer.url}/admin/events/${dead.eventId}/replay`, {
        method: 'POST',
        headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
      });
      await replayed.body.text();
      expect(replayed.statusCode).toBe(202);
      await eventually(
        async () => (await providerStatus(s, messageId)) === 'delivered',
        'delivery after the replay',
      );
      expect(markedFailed(s)).toEqual([]);
    },
  );

  it('full for a while: retried until the space is back, then imported and acknowledged by itself', async () => {
    const { sandbox: s, disk: d } = await start();
    d.fill();
    const messageId = await s.sendInboundInvoice();
    await eventually(
      async () => ((await deliveryEvent(s, messageId))?.attempts ?? 0) >= 1,
      'a first failed attempt',
    );
    d.free();
    await eventually(
      async () => (await providerStatus(s, messageId)) === 'delivered',
      'delivery once the space is back',
    );
    // The service shows delivered as soon as mark-as-delivered reaches it; the consumer
    // records the acknowledgement and settles the event just after.
    await eventually(
      async () => (await deliveryEvent(s, messageId))?.state === 'done',
      'the event settled as done',
    );
    expect(markedFailed(s)).toEqual([]);
  });
});
