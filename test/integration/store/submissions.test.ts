/**
 * The submission outbox on both stores (SubmissionStore in src/consumer/store/submissions.ts): an
 * invoice number is stored once, an attempt is recorded before it leaves, a submitter holds an
 * invoice alone while its lease runs, and settling (by the reply, a lookup or the created
 * webhook) happens once and queues one notice for the status sink in the same write.
 */
import { expect, it } from 'vitest';
import type { NewSubmission } from '../../../src/consumer/store/submissions.ts';
import { type DisposableStore, describeEachStore, useEmptyStore } from '../../support/stores.ts';

const NOW = 1_800_000_000_000;
const LEASE = 30_000;
const SLACK = 600_000;

const invoice = (invoiceNo: string, body = `{"invoice":{"invoiceNo":"${invoiceNo}"}}`) =>
  ({ invoiceNo, body, bodyHash: `hash-of-${body}` }) satisfies NewSubmission;

let store: DisposableStore;

/** The sink notices queued, by id. */
async function notices() {
  const rows = await store.sinkOutbox.list({ limit: 100 });
  return rows.map((row) => row.notice).sort((a, b) => a.id.localeCompare(b.id));
}

describeEachStore('submission outbox', (kind) => {
  useEmptyStore(kind, (opened) => {
    store = opened;
  });

  it('stores an invoice number once, keeping the first body', async () => {
    const first = await store.submissions.add(invoice('INV-1'), NOW);
    expect(first.added).toBe(true);
    expect(first.submission).toMatchObject({
      invoiceNo: 'INV-1',
      state: 'queued',
      attempts: 0,
      messageId: null,
      nextAttemptAt: NOW,
      createdAt: NOW,
    });
    const again = await store.submissions.add(invoice('INV-1', '{"other":true}'), NOW + 5);
    expect(again.added).toBe(false);
    expect(again.submission.bodyHash).toBe(first.submission.bodyHash);
    expect(await store.submissions.list({ limit: 10 })).toHaveLength(1);
  });

  it('hands a due invoice to one submitter until its lease ends', async () => {
    await store.submissions.add(invoice('INV-1'), NOW);
    await store.submissions.add(invoice('INV-2'), NOW + 10_000);
    const claimed = await store.submissions.claimDue(NOW + 1, 10, LEASE);
    expect(claimed.map((s) => s.invoiceNo)).toEqual(['INV-1']);
    expect(await store.submissions.claimDue(NOW + 2, 10, LEASE)).toEqual([]);
    // The holder died: after its lease the invoice is handed out again, the later one with it.
    const later = await store.submissions.claimDue(NOW + LEASE + 2, 10, LEASE);
    expect(later.map((s) => s.invoiceNo)).toEqual(['INV-1', 'INV-2']);
  });

  it('records an attempt before it leaves, and a crashed attempt is found in sending', async () => {
    await store.submissions.add(invoice('INV-1'), NOW);
    await store.submissions.claimDue(NOW, 1, LEASE);
    expect(await store.submissions.markSending('INV-1', NOW + 1)).toBe(true);
    // No record of the reply: the process died. The next claim sees an attempt that may be out.
    const [again] = await store.submissions.claimDue(NOW + LEASE + 5, 1, LEASE);
    expect(again).toMatchObject({ state: 'sending', attempts: 1, firstAttemptAt: NOW + 1 });
    await store.submissions.markSending('INV-1', NOW + LEASE + 6);
    expect(await store.submissions.get('INV-1')).toMatchObject({
      attempts: 2,
      firstAttemptAt: NOW + 1,
    });
    expect(await store.submissions.stats()).toEqual({
      queued: 0,
      sending: 1,
      unknown: 0,
      oldestOpenAt: NOW,
    });
  });

  it('settles once, with one notice for the sink', async () => {
    await store.submissions.add(invoice('INV-1'), NOW);
    await store.submissions.markSending('INV-1', NOW + 1);
    expect(await store.submissions.markSubmitted('INV-1', 'msg-1', 'reply', NOW + 2)).toBe(true);
    expect(await store.submissions.markSubmitted('INV-1', 'msg-1', 'lookup', NOW + 3)).toBe(false);
    expect(await store.submissions.markRefused('INV-1', 'too late', NOW + 4)).toBe(false);
    expect(await store.submissions.markSending('INV-1', NOW + 5)).toBe(false);
    await store.submissions.markRetry('INV-1', 'unknown', 'ignored', NOW + 6);
    expect(await store.submissions.get('INV-1')).toMatchObject({
      state: 'submitted',
      messageId: 'msg-1',
      resolvedBy: 'reply',
      settledAt: NOW + 2,
      attempts: 1,
      lastError: null,
      // Emptied once settled; the hash still tells a repeat from another invoice.
      body: '',
      bodyHash: 'hash-of-{"invoice":{"invoiceNo":"INV-1"}}',
    });
    expect(await store.submissions.claimDue(NOW + LEASE * 10, 10, LEASE)).toEqual([]);
    expect(await notices()).toEqual([
      {
        id: 'submission:INV-1',
        kind: 'submission',
        invoiceNo: 'INV-1',
        messageId: 'msg-1',
        transfer: 'outbound',
        formerValue: null,
        newValue: 'submitted',
        occurredAt: new Date(NOW + 2).toISOString(),
        source: 'submission',
        properties: { resolvedBy: 'reply' },
        validationResults: null,
      },
    ]);
  });

  it('keeps a refusal with its reason, and tells the sink', async () => {
    await store.submissions.add(invoice('INV-9'), NOW);
    await store.submissions.markSending('INV-9', NOW + 1);
    expect(await store.submissions.markRefused('INV-9', 'HTTP 400: not an object', NOW + 2)).toBe(
      true,
    );
    expect(await store.submissions.get('INV-9')).toMatchObject({
      state: 'refused',
      lastError: 'HTTP 400: not an object',
      messageId: null,
    });
    const [notice] = await notices();
    expect(notice).toMatchObject({
      kind: 'submission',
      messageId: null,
      newValue: 'refused',
      properties: { reason: 'HTTP 400: not an object' },
    });
    // Its stream is its own: an undelivered refusal holds back no other invoice.
    await store.submissions.add(invoice('INV-10'), NOW);
    await store.submissions.markSending('INV-10', NOW + 1);
    await store.submissions.markSubmitted('INV-10', 'msg-10', 'reply', NOW + 3);
    const heads = await store.sinkOutbox.claimDue(NOW + 10, 10, LEASE);
    expect(heads.map((row) => row.notice.id)).toEqual(['submission:INV-9', 'submission:INV-10']);
  });

  it('puts an attempt whose reply was lost back as unknown, due at the lookup', async () => {
    await store.submissions.add(invoice('INV-1'), NOW);
    await store.submissions.claimDue(NOW, 1, LEASE);
    await store.submissions.markSending('INV-1', NOW + 1);
    await store.submissions.markRetry('INV-1', 'unknown', 'socket hang up', NOW + 10_000);
    expect(await store.submissions.claimDue(NOW + 9_999, 1, LEASE)).toEqual([]);
    const [due] = await store.submissions.claimDue(NOW + 10_000, 1, LEASE);
    expect(due).toMatchObject({ state: 'unknown', attempts: 1, lastError: 'socket hang up' });
    expect((await store.submissions.list({ limit: 10, state: 'unknown' })).length).toBe(1);
  });

  it('is settled by the created webhook of a message received after its first attempt', async () => {
    await store.submissions.add(invoice('INV-1'), NOW);
    // Before any attempt, a message with the number is another invoice's.
    expect(await store.submissions.linkCreated('INV-1', 'old', NOW, SLACK, NOW)).toBe(false);
    await store.submissions.markSending('INV-1', NOW + SLACK + 1_000);
    // Received long before the attempt: the number was used before.
    expect(await store.submissions.linkCreated('INV-1', 'old', NOW, SLACK, NOW + 2)).toBe(false);
    expect(
      await store.submissions.linkCreated('INV-1', 'msg-1', NOW + SLACK + 999, SLACK, NOW + 3),
    ).toBe(true);
    expect(await store.submissions.linkCreated('INV-2', 'msg-2', NOW, SLACK, NOW + 3)).toBe(false);
    expect(await store.submissions.get('INV-1')).toMatchObject({
      state: 'submitted',
      messageId: 'msg-1',
      resolvedBy: 'created',
    });
    // The reply arriving after the webhook changes nothing.
    expect(await store.submissions.markSubmitted('INV-1', 'msg-1', 'reply', NOW + 4)).toBe(false);
    expect((await notices()).map((n) => n.properties)).toEqual([{ resolvedBy: 'created' }]);
  });

  it('is pruned by retention once settled long enough, never while open', async () => {
    for (const no of ['OLD', 'NEW', 'OPEN']) await store.submissions.add(invoice(no), NOW);
    await store.submissions.markSending('OLD', NOW);
    await store.submissions.markSubmitted('OLD', 'msg-old', 'reply', NOW + 1);
    await store.submissions.markSending('NEW', NOW);
    await store.submissions.markRefused('NEW', 'no', NOW + 100);
    await store.submissions.markSending('OPEN', NOW);
    const bound = { limit: 10, budgetMs: 60_000 };
    const batch = await store.retention.pruneSubmissions(NOW + 50, bound);
    expect(batch).toMatchObject({ count: 1, more: false });
    expect(await store.submissions.get('OLD')).toBeUndefined();
    // Long after: the refused one goes, the open one (an attempt out) never does.
    await store.retention.pruneSubmissions(NOW + 1e12, bound);
    expect((await store.submissions.list({ limit: 10 })).map((s) => s.invoiceNo)).toEqual(['OPEN']);
  });

  it('lists newest first, by state, with counts of the open ones', async () => {
    for (const [i, no] of ['A', 'B', 'C'].entries()) {
      await store.submissions.add(invoice(no), NOW + i);
    }
    await store.submissions.markSending('B', NOW + 5);
    await store.submissions.markSubmitted('B', 'msg-b', 'reply', NOW + 6);
    expect((await store.submissions.list({ limit: 10 })).map((s) => s.invoiceNo)).toEqual([
      'C',
      'B',
      'A',
    ]);
    expect((await store.submissions.list({ limit: 1 })).map((s) => s.invoiceNo)).toEqual(['C']);
    const queued = await store.submissions.list({ limit: 10, state: 'queued' });
    expect(queued.map((s) => s.invoiceNo)).toEqual(['C', 'A']);
    expect(await store.submissions.stats()).toEqual({
      queued: 2,
      sending: 0,
      unknown: 0,
      oldestOpenAt: NOW,
    });
  });
});
