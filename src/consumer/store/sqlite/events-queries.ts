/**
 * The inbox's statements on SQLite, by name: sqlite-events.ts prepares these and no others, so
 * the query-plan test (test/integration/store/query-plans.test.ts) can EXPLAIN each one and
 * fail on a plan whose cost grows with history (a full scan or a temporary B-tree over a
 * history-sized table).
 */
import { byEventIdSql, SETTLED } from '../by-event-id.ts';
import { EVENT_COLUMNS } from '../events.ts';

/** Open events by eventId walk the backlog, named (see byEventIdSql). */
const OPEN_EVENTS = 'events INDEXED BY events_due';

export const EVENT_SQL = {
  // A duplicate is an event in the inbox (by its key, (occurredAt, eventId): store/README.md
  // says why), or one retention removed from it (seen_events), or a finished event's eventId
  // alone (events_settled: a read, no page write), in case a sender changed occurredAt.
  insert: `
    INSERT INTO events (event_id, action, transfer, message_id, party, occurred_at, test, flag,
                        body, received_at, next_attempt_at, updated_at, trace_parent)
    SELECT @eventId, @action, @transfer, @messageId, @party, @occurredAt, @testInt, @flag,
           @body, @receivedAt, @receivedAt, @receivedAt, @traceParent
     WHERE NOT EXISTS (SELECT 1 FROM seen_events WHERE event_id = @eventId)
       AND NOT EXISTS (SELECT 1 FROM events WHERE event_id = @eventId AND ${SETTLED})
    ON CONFLICT (occurred_at, event_id) DO NOTHING`,
  // Candidates for claimDue, each cheap whatever the backlog: due pending events in due order
  // from the events_due index, skipping messages whose claim is live (a primary-key probe per
  // row), and events a dead holder left in processing (few: what handlers had in hand). Only
  // the row and its message: the rest, body included, is read for the events claimed alone
  // (markClaimed).
  duePending: `
    SELECT e.rowid AS position, e.message_id FROM events e
     WHERE e.state = 'pending' AND e.next_attempt_at <= @now
       AND NOT EXISTS (SELECT 1 FROM message_claims c
                        WHERE c.message_id = e.message_id AND c.lease_until >= @now)
     ORDER BY e.next_attempt_at
     LIMIT @window`,
  abandoned: `
    SELECT e.rowid AS position, e.message_id FROM events e
     WHERE e.state = 'processing'
       AND NOT EXISTS (SELECT 1 FROM message_claims c
                        WHERE c.message_id = e.message_id AND c.lease_until >= @now)
     LIMIT @window`,
  // The claimed event as it is now, read by the statement that claims it.
  markClaimed: `
    UPDATE events
       SET state = 'processing', attempts = attempts + 1, claim_token = @token,
           locked_until = @leaseUntil, updated_at = @now
     WHERE rowid = @position
    RETURNING ${EVENT_COLUMNS}`,
  settle: `
    UPDATE events
       SET state = @state, claim_token = NULL, locked_until = NULL, last_error = @error,
           updated_at = @now, next_attempt_at = COALESCE(@nextAttemptAt, next_attempt_at)
     WHERE occurred_at = @occurredAt AND event_id = @eventId
       AND state = 'processing' AND claim_token = @token
       AND EXISTS (SELECT 1 FROM message_claims c
                    WHERE c.message_id = @messageId AND c.token = @token)`,
  // By eventId alone (an operator's): finished events through events_settled (by-event-id.ts).
  replay: `
    UPDATE events
       SET state = 'pending', attempts = 0, next_attempt_at = @now, locked_until = NULL,
           claim_token = NULL, resolution = NULL, updated_at = @now
     WHERE event_id = @eventId AND ${SETTLED} AND length(body) > 0`,
  // The dead events of a message whose work another handler has done, through events_dead
  // (migration 009), whose WHERE (state = 'dead') this repeats word for word.
  closeDead: `
    UPDATE events
       SET state = 'done', resolution = @resolution, updated_at = @now
     WHERE message_id = @messageId AND state = 'dead'
       AND transfer = @transfer AND action = @action
    RETURNING event_id`,
  // Why a replay changed nothing: no such event, or one pending, processing or without body.
  replayable: byEventIdSql('state, length(body) AS size', '@eventId', OPEN_EVENTS),
  get: byEventIdSql('*', '@eventId', OPEN_EVENTS),
  // Newest first, after a cursor: an index walked backwards gives received_at and rowid both
  // descending, and starts at the cursor (keyset pagination).
  listAll: `
    SELECT rowid AS position, * FROM events
     WHERE (received_at, rowid) < (@at, @id)
     ORDER BY received_at DESC, rowid DESC LIMIT @limit`,
  listByState: `
    SELECT rowid AS position, * FROM events
     WHERE state = @state AND (received_at, rowid) < (@at, @id)
     ORDER BY received_at DESC, rowid DESC LIMIT @limit`,
  // The states whose counts matter to an operator, each bounded by the backlog, not by
  // history: done and skipped are counted by the worker's own metrics instead.
  countOpen: `
    SELECT state, COUNT(*) AS n FROM events
     WHERE state IN ('pending', 'processing', 'dead') GROUP BY state`,
  // Two index probes: the first entry of events_state_received for pending, and the
  // processing events (those in hand, through events_due), whose updated_at is their claim's.
  oldestOpen: `
    SELECT (SELECT MIN(received_at) FROM events WHERE state = 'pending') AS pending,
           (SELECT MIN(updated_at) FROM events WHERE state = 'processing') AS processing`,
} as const;
