/**
 * The worker's turn on an inbox event on PostgreSQL (pg-events.ts): claiming due events with
 * their messages' claims, and settling a claimed event, each in one transaction or statement.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { ClaimRequest } from '../claims.ts';
import {
  type ClaimedEvent,
  EVENT_COLUMNS,
  type EventColumns,
  type Settlement,
  toStoredEvent,
} from '../events.ts';
import { inTransaction } from './pool.ts';

// Candidates as on SQLite (abandoned ones, then due ones in due order), locked with SKIP LOCKED
// so replicas claiming at once take different events without waiting ($1 now, $2 window).
const ABANDONED = `
  SELECT e.occurred_at, e.event_id, e.message_id FROM events e
   WHERE e.state = 'processing'
     AND NOT EXISTS (SELECT 1 FROM message_claims c
                      WHERE c.message_id = e.message_id AND c.lease_until >= $1)
   LIMIT $2 FOR UPDATE OF e SKIP LOCKED`;
const DUE = `
  SELECT e.occurred_at, e.event_id, e.message_id FROM events e
   WHERE e.state = 'pending' AND e.next_attempt_at <= $1
     AND NOT EXISTS (SELECT 1 FROM message_claims c
                      WHERE c.message_id = e.message_id AND c.lease_until >= $1)
   ORDER BY e.next_attempt_at LIMIT $2 FOR UPDATE OF e SKIP LOCKED`;

// The claims of the candidates' messages, taken only where free or expired: a replica racing
// for the same message waits for the other's commit and then finds the claim live.
const TAKE_CLAIMS = `
  INSERT INTO message_claims (message_id, holder, token, lease_until, acquired_at)
  SELECT m, $3, t, $4, $5 FROM unnest($1::text[], $2::text[]) AS c(m, t)
  ON CONFLICT (message_id) DO UPDATE
     SET holder = EXCLUDED.holder, token = EXCLUDED.token,
         lease_until = EXCLUDED.lease_until, acquired_at = EXCLUDED.acquired_at
   WHERE message_claims.lease_until < $5
  RETURNING message_id, token`;

// The events of the claims obtained.
const MARK_CLAIMED = `
  UPDATE events e
     SET state = 'processing', attempts = e.attempts + 1, claim_token = c.token,
         locked_until = $4, updated_at = $5
    FROM unnest($1::text[], $2::text[], $3::text[]) AS c(occurred_at, event_id, token)
   WHERE e.occurred_at = c.occurred_at AND e.event_id = c.event_id
  RETURNING ${EVENT_COLUMNS.split(', ')
    .map((column) => `e.${column}`)
    .join(', ')}, e.claim_token`;

// The claim row is locked first, so a takeover committing meanwhile is seen: the event is
// then left alone (its new holder settles it).
const SETTLE = `
  WITH claim AS (
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
         (SELECT count(*) FROM released)::int AS released`;

type Candidate = { occurred_at: string; event_id: string; message_id: string };

/** EventStore.claimDue: candidates, their messages' claims, then the events; one transaction. */
export function claimDueEvents(
  pool: pg.Pool,
  { now, limit, leaseMs, holder }: ClaimRequest & { limit: number },
): Promise<ClaimedEvent[]> {
  const window = limit * 4 + 16;
  return inTransaction(pool, async (client) => {
    const { rows: abandoned } = await client.query<Candidate>(ABANDONED, [now, window]);
    const { rows: due } = await client.query<Candidate>(DUE, [now, window]);
    const picked = new Map<string, Candidate>();
    for (const row of [...abandoned, ...due]) {
      if (picked.size >= limit) break;
      if (!picked.has(row.message_id)) picked.set(row.message_id, row);
    }
    if (picked.size === 0) return [];

    const messageIds = [...picked.keys()];
    const tokens = messageIds.map(() => randomUUID());
    const leaseUntil = now + leaseMs;
    const { rows: claims } = await client.query<{ message_id: string; token: string }>(
      TAKE_CLAIMS,
      [messageIds, tokens, holder, leaseUntil, now],
    );
    if (claims.length === 0) return [];
    const taken = claims.map((claim) => picked.get(claim.message_id) as Candidate);
    const { rows: claimed } = await client.query<EventColumns & { claim_token: string }>(
      MARK_CLAIMED,
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
}

/** EventStore.settle, in one statement (SETTLE). */
export async function settleEvent(
  pool: pg.Pool,
  event: ClaimedEvent,
  settlement: Settlement,
  now: number,
): Promise<boolean> {
  const { rows } = await pool.query<{ settled: number }>(SETTLE, [
    event.messageId,
    event.claim.token,
    event.occurredAt,
    event.eventId,
    settlement.state,
    'error' in settlement ? settlement.error : null,
    now,
    settlement.state === 'pending' ? settlement.nextAttemptAt : null,
    'dropBody' in settlement && settlement.dropBody === true,
  ]);
  return rows[0]?.settled === 1;
}
