/**
 * No query whose cost grows with history, on either store: every statement the store runs is
 * EXPLAINed on a database holding history, and the test fails on a full scan of a table that
 * grows with history, or on a sort (SQLite's temporary B-tree, PostgreSQL's Sort node) over
 * one. message_claims (claims in hand) and health (one row) never grow with history; neither
 * does the sink outbox's partial index of undelivered notices (sink_outbox_pending), whose walk
 * or sort costs what is waiting, like the due events.
 *
 * SQLite: every statement of the src/consumer/store/sqlite/<concern>-queries.ts files, which the
 * store prepares and nothing else. PostgreSQL: every statement a workload of the whole contract
 * executes, captured from the pool, explained with sequential scans and sorts disabled: a plan
 * that still scans or sorts has no index to serve it.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_SQL } from '../../../src/consumer/store/sqlite/claims-queries.ts';
import { EVENT_SQL } from '../../../src/consumer/store/sqlite/events-queries.ts';
import { HEALTH_SQL } from '../../../src/consumer/store/sqlite/health-queries.ts';
import { MESSAGE_SQL } from '../../../src/consumer/store/sqlite/messages-queries.ts';
import { RETENTION_SQL } from '../../../src/consumer/store/sqlite/retention-queries.ts';
import { SINK_OUTBOX_SQL } from '../../../src/consumer/store/sqlite/sink-outbox-queries.ts';
import type { SqliteStore } from '../../../src/consumer/store/sqlite/sqlite-store.ts';
import { SUBMISSION_SQL } from '../../../src/consumer/store/sqlite/submissions-queries.ts';
import type { Store } from '../../../src/consumer/store/store.ts';
import { describeWithPostgres } from '../../support/postgres.ts';
import { newEvent } from '../../support/sqlite.ts';
import { type DisposableStore, POSTGRES, SQLITE } from '../../support/stores.ts';

const NOW = 1_800_000_000_000;
const HISTORY_TABLES = /\b(events|messages|status_changes|seen_events|sink_outbox|submissions)\b/;
/**
 * Partial indexes that hold the backlog only (the sink notices not delivered yet, the
 * invoices not submitted yet), never history: walking one costs what is waiting, as walking
 * the due events does.
 */
const BACKLOG_INDEX = '(?:sink_outbox_pending|submissions_due)';

/**
 * History: finished events, delivered messages and their status changes and delivered sink
 * notices, and a few open.
 */
async function fillHistory(store: Store, count: number) {
  for (let i = 0; i < count; i++) {
    const messageId = `history-${i}`;
    const event = newEvent({ messageId, receivedAt: NOW - 1_000_000 + i });
    await store.events.insert(event);
    const key = { messageId, transfer: 'inbound' as const };
    await store.messages.applyStatus(
      key,
      {
        kind: 'delivery',
        value: i % 20 === 0 ? 'pendingdelivery' : 'delivered',
        at: i,
        source: 'change',
        notice: {
          id: `notice-${i}`,
          ...key,
          kind: 'delivery',
          formerValue: null,
          newValue: 'delivered',
          occurredAt: new Date(i).toISOString(),
          source: 'event',
          properties: null,
          validationResults: null,
        },
      },
      NOW,
    );
    await store.messages.recordStatusChange(
      {
        ...key,
        eventId: `change-${i}`,
        kind: 'delivery',
        formerValue: 'pendingdelivery',
        newValue: 'delivered',
        occurredAt: i,
        properties: null,
        validationResults: null,
        outcome: 'applied',
      },
      NOW,
    );
  }
  for (;;) {
    const claimed = await store.events.claimDue({
      now: NOW,
      limit: 200,
      leaseMs: 1000,
      holder: 'h',
    });
    if (claimed.length === 0) break;
    for (const event of claimed) await store.events.settle(event, { state: 'done' }, NOW);
  }
  // Submitted invoices, a few still open.
  for (let i = 0; i < count; i++) {
    const invoiceNo = `history-invoice-${i}`;
    await store.submissions.add({ invoiceNo, body: '{}', bodyHash: 'h' }, NOW - 1_000_000 + i);
    if (i % 50 === 0) continue;
    await store.submissions.markSending(invoiceNo, NOW);
    await store.submissions.markSubmitted(invoiceNo, `history-${i}`, 'reply', NOW);
  }
  // All but a few notices delivered.
  for (;;) {
    const claimed = await store.sinkOutbox.claimDue(NOW, 200, 1000);
    if (claimed.length === 0) break;
    for (const row of claimed) {
      if (row.seq % 50 === 0) await store.sinkOutbox.markFailed(row.seq, 'down', NOW + 1e9, NOW);
      else await store.sinkOutbox.markDelivered([row.seq], NOW);
    }
  }
}

/**
 * A year-like history in PostgreSQL: $1 finished events, their messages, status changes and
 * sink notices, a tenth of them waiting (a sink that has been down a while: the head of a
 * stream must be found through its index, not by walking the backlog).
 */
const PG_HISTORY = `
  WITH n AS (SELECT g FROM generate_series(1, $1::int) AS g),
  e AS (
    INSERT INTO events (event_id, action, transfer, message_id, party, occurred_at, test, body,
                        received_at, state, attempts, next_attempt_at, updated_at)
    SELECT 'bulk-' || g, 'deliveryNotified', 'inbound', 'bulk-' || g, '0208:0000000000',
           '2026-01-01T00:00:00Z', false, '\\x7b7d', $2::bigint - 10000000 + g,
           CASE WHEN g % 1000 = 0 THEN 'dead' ELSE 'done' END, 1, 0, $2::bigint
      FROM n RETURNING 1),
  s AS (
    INSERT INTO seen_events (event_id, received_at)
    SELECT 'seen-' || g, $2::bigint - 20000000 + g FROM n RETURNING 1),
  m AS (
    INSERT INTO messages (message_id, transfer, delivery_status, delivery_at, last_event_at,
                          imported_at, acknowledged_at, acknowledgement, created_at, updated_at)
    SELECT 'bulk-' || g, 'inbound', 'delivered', g, $2::bigint - 10000000 + g, 1, 1, 'delivered',
           1, 1
      FROM n RETURNING 1),
  o AS (
    INSERT INTO sink_outbox (notice_id, message_id, transfer, kind, notice, created_at,
                             next_attempt_at, delivered_at)
    SELECT 'bulk-notice-' || k.kind || '-' || g, 'bulk-' || g, 'inbound', k.kind, '{}'::jsonb, 1, 1,
           CASE WHEN g % 10 = 0 THEN NULL ELSE $2::bigint - 10000000 + g END
      FROM n, (VALUES ('delivery'), ('lifecycle')) AS k(kind) RETURNING 1)
  INSERT INTO status_changes (event_id, message_id, transfer, kind, former_value, new_value,
                              occurred_at, outcome, recorded_at)
  SELECT 'bulk-change-' || g, 'bulk-' || g, 'inbound', 'delivery', 'pendingdelivery', 'delivered',
         g, 'applied', 1
    FROM n`;

/**
 * Settled invoices of the submission outbox, a year's worth for an ERP that sends a fifth as
 * many invoices as it receives; a statement of its own, so neither runs into the pool's
 * query timeout on a loaded machine.
 */
const PG_SUBMISSION_HISTORY = `
  INSERT INTO submissions (invoice_no, body, body_hash, state, message_id, resolved_by,
                           attempts, first_attempt_at, next_attempt_at, created_at, settled_at)
  SELECT 'bulk-invoice-' || g, '', 'h', 'submitted', 'bulk-' || g, 'reply', 1, g, g,
         $2::bigint - 10000000 + g, $2::bigint - 10000000 + g
    FROM generate_series(1, $1::int) AS g`;

/** Dummy values for every parameter a statement names, named (@x) or positional (?). */
function parameters(sql: string): Record<string, unknown> | unknown[] {
  const named = [...sql.matchAll(/@(\w+)/g)].map((m) => m[1] as string);
  if (named.length > 0) {
    return Object.fromEntries(
      named.map((name) => [
        name,
        /now|at$|At$|Until|window|limit|Int|change|fetched|before|^id$/.test(name) ? 1 : 'x',
      ]),
    );
  }
  return [...sql.matchAll(/\?/g)].map(() => 1);
}

describe('query plans (sqlite)', () => {
  let store: DisposableStore & SqliteStore;
  beforeAll(async () => {
    store = (await SQLITE.open()) as DisposableStore & SqliteStore;
    await fillHistory(store, 1000);
    store.db.exec('ANALYZE');
  });
  afterAll(async () => {
    await store.dispose();
  });

  const statements: Array<[string, string]> = [
    ...Object.entries(EVENT_SQL).map(([name, sql]) => [`events.${name}`, sql] as [string, string]),
    ...Object.entries(CLAIM_SQL).map(([name, sql]) => [`claims.${name}`, sql] as [string, string]),
    ...Object.entries(MESSAGE_SQL).map(
      ([name, sql]) => [`messages.${name}`, sql] as [string, string],
    ),
    ...Object.entries(HEALTH_SQL).map(([name, sql]) => [`health.${name}`, sql] as [string, string]),
    ...Object.entries(RETENTION_SQL).map(
      ([name, sql]) => [`retention.${name}`, sql] as [string, string],
    ),
    ...Object.entries(SINK_OUTBOX_SQL).map(
      ([name, sql]) => [`sinkOutbox.${name}`, sql] as [string, string],
    ),
    ...Object.entries(SUBMISSION_SQL).map(
      ([name, sql]) => [`submissions.${name}`, sql] as [string, string],
    ),
  ];

  it.each(statements)(
    '%s neither scans nor sorts a table that grows with history',
    (_name, sql) => {
      const plan = (
        store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(parameters(sql) as never) as {
          detail: string;
        }[]
      ).map((row) => row.detail);
      // A walk in the order asked for (along an index, or a table in rowid order: no temporary
      // B-tree), cut off by LIMIT, reads LIMIT rows.
      const ordered = /\bLIMIT\b/.test(sql) && !/\bWHERE\b/.test(sql);
      const growing = plan.filter(
        (detail) =>
          (/^SCAN /.test(detail) &&
            HISTORY_TABLES.test(detail) &&
            !(ordered && (/ USING (COVERING )?INDEX /.test(detail) || /^SCAN \w+$/.test(detail))) &&
            !new RegExp(` USING (COVERING )?INDEX ${BACKLOG_INDEX}\\b`).test(detail)) ||
          /TEMP B-TREE/.test(detail) ||
          // A skip-scan walks the whole index, one probe per value of its first column.
          /\bANY\(/.test(detail),
      );
      expect(growing, plan.join(' | ')).toEqual([]);
    },
  );
});

/**
 * Whether a PostgreSQL plan finds all its rows through the backlog's partial indexes (the sink
 * notices waiting) or by primary key: sorting what it found is then bounded by the backlog,
 * not history.
 */
function readsBacklogOnly(plan: string[]): boolean {
  const scans = plan
    .map((line, i) => ({ line, next: plan[i + 1] ?? '' }))
    .filter(
      ({ line }) => /\bScan\b/.test(line) && !/(Bitmap Heap|Subquery|CTE|Function) Scan/.test(line),
    );
  return (
    scans.length > 0 &&
    scans.every(
      ({ line, next }) =>
        new RegExp(`\\b(${BACKLOG_INDEX}|sink_outbox_stream)\\b`).test(line) ||
        (/_pkey on /.test(line) && /Index Cond/.test(next)),
    )
  );
}

describeWithPostgres('query plans (postgres)', () => {
  let store: DisposableStore & { pool: pg.Pool };
  const captured = new Map<string, unknown[]>();

  beforeAll(async () => {
    store = (await POSTGRES.open()) as DisposableStore & { pool: pg.Pool };
    // Record every statement the store sends, with the values it sent: each connection the
    // pool opens from now on (the pool's own query() goes through one, with a callback).
    await store.pool.query('SELECT 1');
    const idle = await Promise.all(
      Array.from({ length: store.pool.totalCount }, () => store.pool.connect()),
    );
    for (const client of idle) client.release(true);
    store.pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as { query: unknown }).query = (...args: unknown[]) => {
        const [text, values] = args;
        if (typeof text === 'string' && Array.isArray(values)) captured.set(text, values);
        return query(...args);
      };
    });
    await fillHistory(store, 50);
    // The rest of the contract, once each.
    const key = { messageId: 'history-1', transfer: 'inbound' as const };
    await store.events.list({ limit: 10 });
    await store.events.list({ state: 'done', limit: 10 });
    await store.events.countOpen();
    await store.events.oldestOpen();
    await store.events.get('evt-1');
    await store.events.replay('nope', NOW);
    await store.messages.get(key);
    await store.messages.listSides('history-1');
    await store.messages.statusChanges(key);
    await store.messages.transitionsAt(key, 'delivery', 1);
    await store.messages.listStale(NOW, 10);
    await store.messages.recordSnapshot(
      { ...key, statuses: { lifecycle: 'paid' }, at: 5, source: 'fetch' },
      NOW,
    );
    await store.messages.markImportStarted(key, NOW);
    await store.messages.markImportFailed(key, 'Error: ERP down', NOW);
    await store.messages.markImported(key, '/x', NOW);
    await store.events.closeDead({
      messageId: 'history-1',
      transfer: 'inbound',
      action: 'deliveryNotified',
      resolution: 'closed',
      now: NOW,
    });
    await store.messages.markAcknowledged(key, 'delivered', null, NOW);
    const claim = await store.claims.acquire('m-claims', { holder: 'h', now: NOW, leaseMs: 1000 });
    if (claim !== undefined) {
      await store.claims.renew(claim, { now: NOW, leaseMs: 1000 });
      await store.claims.get('m-claims');
      await store.claims.release(claim);
    }
    await store.claims.holders(NOW);
    await store.claims.releaseHolder('h');
    await store.checkWritable();
    const page = await store.events.list({ limit: 2 });
    await store.events.list({ state: 'done', limit: 2, after: page.next ?? undefined });
    // Bounds that let each statement run whole (a budget cut short would skip some).
    const bound = { limit: 10, budgetMs: 60_000 };
    await store.retention.dropBodies(NOW, bound);
    await store.retention.pruneEvents(NOW, bound, { rememberSince: 0 });
    await store.retention.pruneDeadEvents({ settled: NOW, any: 0 }, bound, { rememberSince: 0 });
    await store.retention.forgetEventIds(NOW, bound);
    await store.retention.pruneMessages(NOW, bound);
    await store.retention.pruneNotices(NOW, bound);
    await store.retention.pruneSubmissions(NOW, bound);
    await store.sinkOutbox.stats();
    for (const state of [undefined, 'pending', 'failing'] as const) {
      await store.sinkOutbox.list({ limit: 10, ...(state === undefined ? {} : { state }) });
    }
    await store.sinkOutbox.pruneDelivered(NOW, 10);
    await store.submissions.get('history-invoice-1');
    await store.submissions.stats();
    await store.submissions.list({ limit: 10 });
    await store.submissions.list({ limit: 10, state: 'unknown' });
    await store.submissions.add({ invoiceNo: 'plan-1', body: '{}', bodyHash: 'h' }, NOW);
    await store.submissions.add({ invoiceNo: 'plan-1', body: '{}', bodyHash: 'h' }, NOW);
    await store.submissions.claimDue(NOW, 10, 1000);
    await store.submissions.markSending('plan-1', NOW);
    await store.submissions.markRetry('plan-1', 'unknown', 'lost', NOW);
    await store.submissions.linkCreated('plan-1', 'nope', 0, 0, NOW);
    await store.submissions.markRefused('plan-1', 'no', NOW);
    await store.submissions.markSubmitted('plan-1', 'x', 'reply', NOW);
    // Then a history too large to read whole, added in SQL (the store's way is slow), so that
    // the planner's statistics are those of a year in service.
    await store.pool.query(PG_HISTORY, [200_000, NOW]);
    await store.pool.query(PG_SUBMISSION_HISTORY, [40_000, NOW]);
    await store.pool.query('ANALYZE');
    // Writing that history takes a while on a loaded machine.
  }, 180_000);
  afterAll(async () => {
    await store.dispose();
  });

  it('explains every statement the store ran without a scan or a sort of history', async () => {
    expect(captured.size).toBeGreaterThan(15);
    const statements = [...captured];
    const client = await store.pool.connect();
    const problems: string[] = [];
    try {
      for (const [sql, values] of statements) {
        if (!HISTORY_TABLES.test(sql)) continue;
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values);
        const plan = rows.map((row) => row['QUERY PLAN']);
        const backlog = readsBacklogOnly(plan);
        const growing = plan.filter(
          (line, i) =>
            new RegExp(`Seq Scan on ${HISTORY_TABLES.source}`).test(line) ||
            (/\bSort\b/.test(line) && !/Sort Key: .*unnest/.test(line) && !backlog) ||
            // An index walked without a condition reads all of it, unless LIMIT cuts it off
            // or it holds the backlog only.
            (new RegExp(
              `Index (Only )?Scan (Backward )?using \\w+ on ${HISTORY_TABLES.source}`,
            ).test(line) &&
              !/Index Cond/.test(plan[i + 1] ?? '') &&
              !/^Limit/.test(plan[0] ?? '') &&
              !new RegExp(`using ${BACKLOG_INDEX} on`).test(line)),
        );
        if (growing.length > 0)
          problems.push(`${sql.replace(/\s+/g, ' ').slice(0, 160)}\n  ${plan.join('\n  ')}`);
      }
    } finally {
      client.release();
    }
    expect(problems).toEqual([]);
  });
});
