#!/usr/bin/env node
/**
 * `npm run copy-to-postgres -- --from sqlite:./data/consumer.db --to postgres://...`: moves an
 * embedded SQLite store into PostgreSQL, for a deployment outgrowing one process. Copies the
 * inbox (bodies, states, attempts, errors), each message's view (statuses with their
 * watermarks, import and acknowledgement records), the status events received and the status
 * sink's outbox (leases dropped), so the replicas started on PostgreSQL neither import an
 * invoice again nor accept an old eventId twice, and tell the sink what it has not heard yet. Events that were in processing become pending again; claims are not copied (they
 * belong to processes that are stopped by now).
 *
 * Stop the consumer (and cron's reconciliation) first. The target is migrated if needed; rows
 * already there are kept, so a run that was cut off can simply be run again. Exits 0 after
 * printing what it copied, 1 on a failure, 2 on wrong arguments.
 */
import 'dotenv/config';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { openPostgresStore } from '../src/consumer/store/postgres/pg-store.ts';
import { redactUserinfo } from '../src/consumer/text/redact-userinfo.ts';

const USAGE =
  'usage: npm run copy-to-postgres -- --from sqlite:<path> --to postgres://user:password@host/db';
const { values } = parseArgs({
  options: { from: { type: 'string' }, to: { type: 'string' } },
});
const from = values.from?.replace(/^sqlite:/, '');
const to = values.to;
if (from === undefined || to === undefined || !/^postgres(ql)?:\/\//.test(to)) {
  console.error(USAGE);
  process.exit(2);
}

/**
 * Source columns, in the order they are inserted; SQLite's 0/1 become booleans. A column the
 * source does not have yet (a file of an older version, never migrated) is left to the
 * target's default, as the migration would have filled it.
 */
const TABLES: Array<{ name: string; columns: string[]; booleans: string[]; key: string }> = [
  {
    name: 'events',
    columns: [
      'event_id',
      'action',
      'transfer',
      'message_id',
      'party',
      'occurred_at',
      'test',
      'flag',
      'body',
      'received_at',
      'state',
      'attempts',
      'next_attempt_at',
      'last_error',
      'updated_at',
      'resolution',
    ],
    booleans: ['test'],
    key: 'occurred_at, event_id',
  },
  {
    name: 'messages',
    columns: [
      'message_id',
      'transfer',
      'document_no',
      'business_action',
      'validation_status',
      'delivery_status',
      'delivery_at',
      'delivery_confirmed',
      'tax_reporting_status',
      'tax_reporting_at',
      'tax_reporting_confirmed',
      'lifecycle_status',
      'lifecycle_at',
      'lifecycle_confirmed',
      'import_started_at',
      'imported_at',
      'import_location',
      'acknowledged_at',
      'acknowledgement',
      'failure_reason',
      'import_attempts',
      'import_error',
      'last_event_at',
      'created_at',
      'updated_at',
    ],
    booleans: ['delivery_confirmed', 'tax_reporting_confirmed', 'lifecycle_confirmed'],
    key: 'message_id, transfer',
  },
  {
    name: 'status_changes',
    columns: [
      'event_id',
      'message_id',
      'transfer',
      'kind',
      'former_value',
      'new_value',
      'occurred_at',
      'properties',
      'validation_results',
      'outcome',
      'recorded_at',
    ],
    booleans: [],
    key: 'event_id',
  },
  // The status sink's outbox, delivered or not. seq is left to the target, which numbers the
  // rows in the order they are read (the source's seq order), so each stream keeps its order.
  {
    name: 'sink_outbox',
    columns: [
      'notice_id',
      'message_id',
      'transfer',
      'kind',
      'notice',
      'created_at',
      'attempts',
      'next_attempt_at',
      'delivered_at',
      'last_error',
    ],
    booleans: [],
    key: 'notice_id',
  },
  // The submission outbox (leases are not copied: the copy runs with the consumer stopped).
  {
    name: 'submissions',
    columns: [
      'invoice_no',
      'body',
      'body_hash',
      'state',
      'message_id',
      'resolved_by',
      'attempts',
      'first_attempt_at',
      'next_attempt_at',
      'last_error',
      'created_at',
      'settled_at',
    ],
    booleans: [],
    key: 'invoice_no',
  },
];
const BATCH = 500;

async function copyTable(
  source: Database.Database,
  target: pg.Pool,
  table: (typeof TABLES)[number],
): Promise<{ read: number; copied: number }> {
  const present = new Set(
    (source.pragma(`table_info(${table.name})`) as { name: string }[]).map((c) => c.name),
  );
  const columns = table.columns.filter((column) => present.has(column));
  // A table the source does not have yet (a file of an older version): nothing to copy.
  if (columns.length === 0) return { read: 0, copied: 0 };
  const rows = source.prepare(`SELECT ${columns.join(', ')} FROM ${table.name} ORDER BY rowid`);
  let read = 0;
  let copied = 0;
  let batch: Record<string, unknown>[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const values: unknown[] = [];
    const tuples = batch.map((row) => {
      const placeholders = columns.map((column) => {
        let value = row[column];
        if (table.booleans.includes(column)) value = value === 1;
        // A claim belonged to a process that is stopped now: its event is pending again.
        if (table.name === 'events' && column === 'state' && value === 'processing')
          value = 'pending';
        values.push(value);
        return `$${values.length}`;
      });
      return `(${placeholders.join(', ')})`;
    });
    const { rowCount } = await target.query(
      `INSERT INTO ${table.name} (${columns.join(', ')}) VALUES ${tuples.join(', ')}
       ON CONFLICT (${table.key}) DO NOTHING`,
      values,
    );
    copied += rowCount ?? 0;
    batch = [];
  };
  for (const row of rows.iterate() as Iterable<Record<string, unknown>>) {
    read += 1;
    batch.push(row);
    if (batch.length === BATCH) await flush();
  }
  await flush();
  return { read, copied };
}

let source: Database.Database | undefined;
try {
  source = new Database(from, { readonly: true, fileMustExist: true });
  const store = await openPostgresStore(to);
  try {
    for (const table of TABLES) {
      const { read, copied } = await copyTable(source, store.pool, table);
      console.log(`${table.name}: ${read} read, ${copied} copied, ${read - copied} already there`);
    }
  } finally {
    await store.close();
  }
  console.log('copy-to-postgres: done; start the consumer with the new DATABASE_URL');
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`copy-to-postgres: failed: ${redactUserinfo(message)}`);
  process.exitCode = 1;
} finally {
  source?.close();
}
