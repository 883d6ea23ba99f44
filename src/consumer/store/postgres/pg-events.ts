/** The inbox on PostgreSQL (see migrations/001_schema.sql and the contract in ../store.ts). */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { byEventIdSql, SETTLED, whyNotReplayed } from '../by-event-id.ts';
import { decodeCursor, eventPage, NEWEST } from '../cursor.ts';
import {
  type ClaimedEvent,
  type EventState,
  type EventStore,
  type InsertOutcome,
  type NewEvent,
  type OldestOpen,
  OPEN_STATES,
  type OpenState,
  type StoredEvent,
} from '../events.ts';
import { inTransaction } from './pool.ts';

/** Other processes on the database LISTEN here to start new work at once. */
export const INBOX_CHANNEL = 'consumer_inbox';

interface EventRow {
  event_id: string;
  action: string;
  transfer: 'inbound' | 'outbound';
  message_id: string;
  party: string;
  occurred_at: string;
  test: boolean;
  flag: 'test' | 'unknown_action' | null;
  body: Buffer;
  received_at: number;
  state: EventState;
  attempts: number;
  next_attempt_at: number;
  locked_until: number | null;
  last_error: string | null;
  resolution: string | null;
  updated_at: number;
}

const COLUMNS =
  'event_id, action, transfer, message_id, party, occurred_at, test, flag, body, received_at, ' +
  'state, attempts, next_attempt_at, locked_until, last_error, resolution, updated_at';

function toStoredEvent(row: EventRow): StoredEvent {
  return {
    eventId: row.event_id,
    action: row.action,
    transfer: row.transfer,
    messageId: row.message_id,
    party: row.party,
    occurredAt: row.occurred_at,
    test: row.test,
    flag: row.flag,
    body: row.body,
    receivedAt: row.received_at,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lockedUntil: row.locked_until,
    lastError: row.last_error,
    resolution: row.resolution,
    updatedAt: row.updated_at,
  };
}

/**
 * Inserts of one turn of the event loop go in one statement, one commit: the webhooks a burst
 * brings share the cost of PostgreSQL's fsync. The same statement notifies INBOX_CHANNEL, which
 * PostgreSQL delivers at commit, once per transaction. If the statement fails (one row broke a
 * rule), each event is inserted again alone, so it cannot fail its neighbours.
 */
function createInsertBatcher(pool: pg.Pool) {
  const MAX_BATCH = 500;
  let queue: {
    event: NewEvent;
    resolve: (o: InsertOutcome) => void;
    reject: (e: unknown) => void;
  }[] = [];
  let scheduled = false;

  const insert = async (events: NewEvent[]): Promise<Set<string>> => {
    const values: unknown[] = [];
    const rows = events.map((e, i) => {
      values.push(
        e.eventId,
        e.action,
        e.transfer,
        e.messageId,
        e.party,
        e.occurredAt,
        e.test,
        e.flag,
        e.body,
        e.receivedAt,
      );
      const n = i * 10;
      return `($${n + 1}::text, $${n + 2}::text, $${n + 3}::text, $${n + 4}::text, $${n + 5}::text, $${n + 6}::text, $${n + 7}::boolean, $${n + 8}::text, $${n + 9}::bytea, $${n + 10}::bigint)`;
    });
    // A duplicate is an event in the inbox, or one retention removed from it (seen_events), or
    // a finished one's eventId alone (the inbox's key: store/README.md).
    const { rows: inserted } = await pool.query<{ event_id: string }>(
      `WITH inserted AS (
         INSERT INTO events (event_id, action, transfer, message_id, party, occurred_at, test, flag,
                             body, received_at, next_attempt_at, updated_at)
         SELECT v.*, v.received_at, v.received_at
           FROM (VALUES ${rows.join(', ')})
             AS v(event_id, action, transfer, message_id, party, occurred_at, test, flag, body,
                  received_at)
          WHERE NOT EXISTS (SELECT 1 FROM seen_events s WHERE s.event_id = v.event_id)
            AND NOT EXISTS (SELECT 1 FROM events WHERE event_id = v.event_id AND ${SETTLED})
         ON CONFLICT (occurred_at, event_id) DO NOTHING
         RETURNING event_id)
       SELECT event_id, pg_notify('${INBOX_CHANNEL}', '') FROM inserted`,
      values,
    );
    return new Set(inserted.map((row) => row.event_id));
  };

  const settle = (batch: typeof queue, inserted: Set<string>) => {
    for (const entry of batch) {
      // Two calls for one eventId in one batch: the first is the insert, the rest duplicates.
      const fresh = inserted.delete(entry.event.eventId);
      entry.resolve(fresh ? 'inserted' : 'duplicate');
    }
  };

  const flush = async () => {
    scheduled = false;
    const batch = queue.slice(0, MAX_BATCH);
    queue = queue.slice(MAX_BATCH);
    if (queue.length > 0) schedule();
    try {
      settle(batch, await insert(batch.map((entry) => entry.event)));
    } catch {
      for (const entry of batch) {
        try {
          settle([entry], await insert([entry.event]));
        } catch (error) {
          entry.reject(error);
        }
      }
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void flush());
  };
  return (event: NewEvent) =>
    new Promise<InsertOutcome>((resolve, reject) => {
      queue.push({ event, resolve, reject });
      schedule();
    });
}

export function createPostgresEventStore(pool: pg.Pool): Omit<EventStore, 'insert'> & {
  insert(event: NewEvent): Promise<InsertOutcome>;
} {
  const insert = createInsertBatcher(pool);
  return {
    insert,

    async get(eventId) {
      const { rows } = await pool.query<EventRow>(byEventIdSql(COLUMNS, '$1'), [eventId]);
      return rows[0] === undefined ? undefined : toStoredEvent(rows[0]);
    },

    // Keyset pagination: each page starts at the cursor's place in the index.
    async list({ state, limit, after }) {
      const from = after === undefined ? NEWEST : decodeCursor(after);
      const { rows } =
        state === undefined
          ? await pool.query<EventRow & { seq: number }>(
              `SELECT ${COLUMNS}, seq FROM events WHERE (received_at, seq) < ($1, $2)
                ORDER BY received_at DESC, seq DESC LIMIT $3`,
              [from.at, from.id, limit],
            )
          : await pool.query<EventRow & { seq: number }>(
              `SELECT ${COLUMNS}, seq FROM events
                WHERE state = $1 AND (received_at, seq) < ($2, $3)
                ORDER BY received_at DESC, seq DESC LIMIT $4`,
              [state, from.at, from.id, limit],
            );
      return eventPage(rows, limit, toStoredEvent, (row) => ({ at: row.received_at, id: row.seq }));
    },

    async countOpen() {
      const counts = Object.fromEntries(OPEN_STATES.map((s) => [s, 0])) as Record<
        OpenState,
        number
      >;
      const { rows } = await pool.query<{ state: OpenState; n: number }>(
        `SELECT state, count(*)::int AS n FROM events
          WHERE state IN ('pending', 'processing', 'dead') GROUP BY state`,
      );
      for (const { state, n } of rows) counts[state] = n;
      return counts;
    },

    // As on SQLite (queries.ts): an index probe each (events_state_received, events_due).
    async oldestOpen() {
      const { rows } = await pool.query<OldestOpen>(
        `SELECT (SELECT min(received_at) FROM events WHERE state = 'pending') AS pending,
                (SELECT min(updated_at) FROM events WHERE state = 'processing') AS processing`,
        [],
      );
      return rows[0] ?? { pending: null, processing: null };
    },

    // Candidates as on SQLite (abandoned ones, then due ones in due order), locked with SKIP
    // LOCKED so replicas claiming at once take different events without waiting; then the
    // claims of their messages, an upsert that takes a claim only if it is free or expired (a
    // replica racing for the same message waits for the other's commit and then finds the
    // claim live); then the events of the claims obtained. One transaction.
    async claimDue({ now, limit, leaseMs, holder }) {
      const window = limit * 4 + 16;
      return inTransaction(pool, async (client) => {
        type Candidate = { occurred_at: string; event_id: string; message_id: string };
        const { rows: abandoned } = await client.query<Candidate>(
          `SELECT e.occurred_at, e.event_id, e.message_id FROM events e
            WHERE e.state = 'processing'
              AND NOT EXISTS (SELECT 1 FROM message_claims c
                               WHERE c.message_id = e.message_id AND c.lease_until >= $1)
            LIMIT $2 FOR UPDATE OF e SKIP LOCKED`,
          [now, window],
        );
        const { rows: due } = await client.query<Candidate>(
          `SELECT e.occurred_at, e.event_id, e.message_id FROM events e
            WHERE e.state = 'pending' AND e.next_attempt_at <= $1
              AND NOT EXISTS (SELECT 1 FROM message_claims c
                               WHERE c.message_id = e.message_id AND c.lease_until >= $1)
            ORDER BY e.next_attempt_at LIMIT $2 FOR UPDATE OF e SKIP LOCKED`,
          [now, window],
        );
        const rows = [...abandoned, ...due];
        const picked = new Map<string, Candidate>();
        for (const row of rows) {
          if (picked.size >= limit) break;
          if (!picked.has(row.message_id)) picked.set(row.message_id, row);
        }
        if (picked.size === 0) return [];

        const messageIds = [...picked.keys()];
        const tokens = messageIds.map(() => randomUUID());
        const leaseUntil = now + leaseMs;
        const { rows: claims } = await client.query<{ message_id: string; token: string }>(
          `INSERT INTO message_claims (message_id, holder, token, lease_until, acquired_at)
           SELECT m, $3, t, $4, $5 FROM unnest($1::text[], $2::text[]) AS c(m, t)
           ON CONFLICT (message_id) DO UPDATE
              SET holder = EXCLUDED.holder, token = EXCLUDED.token,
                  lease_until = EXCLUDED.lease_until, acquired_at = EXCLUDED.acquired_at
            WHERE message_claims.lease_until < $5
           RETURNING message_id, token`,
          [messageIds, tokens, holder, leaseUntil, now],
        );
        if (claims.length === 0) return [];
        const taken = claims.map((claim) => picked.get(claim.message_id) as Candidate);
        const { rows: claimed } = await client.query<EventRow & { claim_token: string }>(
          `UPDATE events e
              SET state = 'processing', attempts = e.attempts + 1, claim_token = c.token,
                  locked_until = $4, updated_at = $5
             FROM unnest($1::text[], $2::text[], $3::text[]) AS c(occurred_at, event_id, token)
            WHERE e.occurred_at = c.occurred_at AND e.event_id = c.event_id
           RETURNING ${COLUMNS.split(', ')
             .map((column) => `e.${column}`)
             .join(', ')}, e.claim_token`,
          [
            taken.map((event) => event.occurred_at),
            taken.map((event) => event.event_id),
            claims.map((claim) => claim.token),
            leaseUntil,
            now,
          ],
        );
        return claimed
          .map(
            (row): ClaimedEvent => ({
              ...toStoredEvent(row),
              claim: { messageId: row.message_id, holder, token: row.claim_token, leaseUntil },
            }),
          )
          .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt);
      });
    },

    // The claim row is locked first, so a takeover committing meanwhile is seen: the event is
    // then left alone (its new holder settles it).
    async settle(event, settlement, now) {
      const { rows } = await pool.query<{ settled: number }>(
        `WITH claim AS (
           SELECT message_id FROM message_claims
            WHERE message_id = $1 AND token = $2 FOR UPDATE
         ), settled AS (
           UPDATE events
              SET state = $5, claim_token = NULL, locked_until = NULL, last_error = $6,
                  updated_at = $7, next_attempt_at = COALESCE($8, next_attempt_at),
                  body = CASE WHEN $9 THEN '\\x'::bytea ELSE body END
            WHERE occurred_at = $3 AND event_id = $4 AND state = 'processing'
              AND claim_token = $2 AND EXISTS (SELECT 1 FROM claim)
           RETURNING event_id
         ), released AS (
           DELETE FROM message_claims
            WHERE message_id = $1 AND token = $2 AND EXISTS (SELECT 1 FROM settled)
           RETURNING message_id
         )
         SELECT (SELECT count(*) FROM settled)::int AS settled,
                (SELECT count(*) FROM released)::int AS released`,
        [
          event.messageId,
          event.claim.token,
          event.occurredAt,
          event.eventId,
          settlement.state,
          'error' in settlement ? settlement.error : null,
          now,
          settlement.state === 'pending' ? settlement.nextAttemptAt : null,
          'dropBody' in settlement && settlement.dropBody === true,
        ],
      );
      return rows[0]?.settled === 1;
    },

    async replay(eventId, now) {
      const { rowCount } = await pool.query(
        `UPDATE events
            SET state = 'pending', attempts = 0, next_attempt_at = $2, locked_until = NULL,
                claim_token = NULL, resolution = NULL, updated_at = $2
          WHERE event_id = $1 AND ${SETTLED} AND length(body) > 0`,
        [eventId, now],
      );
      if (rowCount === 1) return 'replayed';
      const { rows } = await pool.query<{ state: EventState; size: number }>(
        byEventIdSql('state, length(body) AS size', '$1'),
        [eventId],
      );
      return whyNotReplayed(rows[0]);
    },

    // Through events_dead (migration 009), a partial index of dead events by message.
    async closeDead({ messageId, transfer, action, resolution, now }) {
      const { rows } = await pool.query<{ event_id: string }>(
        `UPDATE events SET state = 'done', resolution = $4, updated_at = $5
          WHERE message_id = $1 AND state = 'dead' AND transfer = $2 AND action = $3
          RETURNING event_id`,
        [messageId, transfer, action, resolution, now],
      );
      return rows.map((row) => row.event_id);
    },
  };
}
