/**
 * Upgrading a store that holds an undelivered status notice and an open submission to
 * migration 013 (both stores): both are handed out as before, with no trace context (they
 * were queued before tracing existed: their work starts traces of its own).
 */
import { expect } from 'vitest';
import type { Store } from '../../../src/consumer/store/store.ts';
import { deliveredNotice } from '../../support/notices.ts';
import { describeUpgrade } from './old-schema.ts';

const NOW = 1_800_000_000_000;
const notice = deliveredNotice('before-013');

/** The old rows, as [sql, values] with positional `?` (SQLite) turned into `$n` for PostgreSQL. */
const OLD_ROWS: Array<[string, unknown[]]> = [
  [
    `INSERT INTO sink_outbox (notice_id, message_id, transfer, kind, notice, created_at,
                              next_attempt_at)
     VALUES (?, ?, 'outbound', 'delivery', ?, 1, 1)`,
    [notice.id, notice.messageId, JSON.stringify(notice)],
  ],
  [
    `INSERT INTO submissions (invoice_no, body, body_hash, state, next_attempt_at, created_at)
     VALUES (?, ?, ?, 'queued', 1, 1)`,
    ['INV-013', '{"invoice":{"invoiceNo":"INV-013"}}', 'hash'],
  ],
];

async function expectUpgraded(store: Store) {
  const [row] = await store.sinkOutbox.claimDue(NOW, 10, 1000);
  expect(row).toMatchObject({ notice, attempts: 0, traceParent: null });
  await store.sinkOutbox.markDelivered([row?.seq as number], NOW);
  expect(await store.sinkOutbox.stats()).toMatchObject({ pending: 0 });
  const [submission] = await store.submissions.claimDue(NOW, 10, 1000);
  expect(submission).toMatchObject({ invoiceNo: 'INV-013', state: 'queued', traceParent: null });
}

describeUpgrade(
  '013',
  'hands out the notices and submissions queued before it, without a trace context',
  {
    before: { sqlite: 11, postgres: 11 },
    rows: OLD_ROWS,
    check: expectUpgraded,
  },
);
