/**
 * Every statement of the SQLite store, by name. The store modules prepare these and nothing
 * else, so the query-plan test (test/integration/store/query-plans.test.ts) can EXPLAIN each one
 * and fail on a plan whose cost grows with history: a full scan of a history-sized table or a
 * sort (temporary B-tree) over one.
 */
import type { StatusKind } from '../../../protocol/index.ts';
import { byEventIdSql, SETTLED } from '../by-event-id.ts';
import { STATUS_COLUMNS } from '../status-columns.ts';

/** Delivery statuses after which a message changes only by a manual retry (docs/statuses.md#final-statuses). */
const OPEN_MESSAGE =
  "(delivery_status IS NULL OR delivery_status NOT IN ('delivered', 'failed', 'parked'))";

/** Open events by eventId walk the backlog, named (see byEventIdSql). */
const OPEN_EVENTS = 'events INDEXED BY events_due';

/** A body retention has dropped is stored empty (a signed event's body never is). */
export const DROPPED_BODY = "x''";

export const EVENT_SQL = {
  // A duplicate is an event in the inbox (by its key, (occurredAt, eventId): store/README.md
  // says why), or one retention removed from it (seen_events), or a finished event's eventId
  // alone (events_settled: a read, no page write), in case a sender changed occurredAt.
  insert: `
    INSERT INTO events (event_id, action, transfer, message_id, party, occurred_at, test, flag,
                        body, received_at, next_attempt_at, updated_at)
    SELECT @eventId, @action, @transfer, @messageId, @party, @occurredAt, @testInt, @flag,
           @body, @receivedAt, @receivedAt, @receivedAt
     WHERE NOT EXISTS (SELECT 1 FROM seen_events WHERE event_id = @eventId)
       AND NOT EXISTS (SELECT 1 FROM events WHERE event_id = @eventId AND ${SETTLED})
    ON CONFLICT (occurred_at, event_id) DO NOTHING`,
  // Candidates for claimDue, each cheap whatever the backlog: due pending events in due order
  // from the events_due index, skipping messages whose claim is live (a primary-key probe per
  // row), and events a dead holder left in processing (few: what handlers had in hand).
  duePending: `
    SELECT e.rowid AS position, e.* FROM events e
     WHERE e.state = 'pending' AND e.next_attempt_at <= @now
       AND NOT EXISTS (SELECT 1 FROM message_claims c
                        WHERE c.message_id = e.message_id AND c.lease_until >= @now)
     ORDER BY e.next_attempt_at
     LIMIT @window`,
  abandoned: `
    SELECT e.rowid AS position, e.* FROM events e
     WHERE e.state = 'processing'
       AND NOT EXISTS (SELECT 1 FROM message_claims c
                        WHERE c.message_id = e.message_id AND c.lease_until >= @now)
     LIMIT @window`,
  markClaimed: `
    UPDATE events
       SET state = 'processing', attempts = attempts + 1, claim_token = @token,
           locked_until = @leaseUntil, updated_at = @now
     WHERE rowid = @position`,
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

export const CLAIM_SQL = {
  // Free, or held past its lease: take it. A row still in its lease is left as it is.
  take: `
    INSERT INTO message_claims (message_id, holder, token, lease_until, acquired_at)
    VALUES (@messageId, @holder, @token, @leaseUntil, @now)
    ON CONFLICT (message_id) DO UPDATE
       SET holder = excluded.holder, token = excluded.token,
           lease_until = excluded.lease_until, acquired_at = excluded.acquired_at
     WHERE message_claims.lease_until < @now`,
  // Still ours as long as nobody replaced the token, even if the lease ran out unnoticed.
  extend:
    'UPDATE message_claims SET lease_until = @leaseUntil WHERE message_id = @messageId AND token = @token',
  drop: 'DELETE FROM message_claims WHERE message_id = @messageId AND token = @token',
  dropHolder: 'DELETE FROM message_claims WHERE holder = ?',
  get: 'SELECT message_id, holder, token, lease_until FROM message_claims WHERE message_id = ?',
  // message_claims holds the claims in hand only (bounded by the handlers), never history.
  liveHolders: 'SELECT DISTINCT holder FROM message_claims WHERE lease_until >= ?',
} as const;

export const MESSAGE_SQL = {
  // last_event_at moves with news about the message (an event, a fresh descriptor), not with
  // the consumer's own import and acknowledgement, so reconciliation can find silent ones.
  touch: `
    INSERT INTO messages (message_id, transfer, last_event_at, created_at, updated_at)
    VALUES (@messageId, @transfer, @now, @now, @now)
    ON CONFLICT (message_id, transfer) DO UPDATE SET last_event_at = @now, updated_at = @now`,
  ensure: `
    INSERT INTO messages (message_id, transfer, last_event_at, created_at, updated_at)
    VALUES (@messageId, @transfer, @now, @now, @now)
    ON CONFLICT (message_id, transfer) DO NOTHING`,
  keepFields: `
    UPDATE messages
       SET document_no = COALESCE(@documentNo, document_no),
           business_action = COALESCE(@businessAction, business_action),
           validation_status = COALESCE(@validationStatus, validation_status)
     WHERE message_id = @messageId AND transfer = @transfer`,
  insertChange: `
    INSERT INTO status_changes (event_id, message_id, transfer, kind, former_value, new_value,
                                occurred_at, properties, validation_results, outcome, recorded_at)
    VALUES (@eventId, @messageId, @transfer, @kind, @formerValue, @newValue, @occurredAt,
            @properties, @validationResults, @outcome, @now)
    ON CONFLICT (event_id) DO NOTHING`,
  importStarted: `
    UPDATE messages SET import_started_at = COALESCE(import_started_at, @now),
                        import_attempts = import_attempts + 1, updated_at = @now
     WHERE message_id = @messageId AND transfer = @transfer`,
  // Never on a side whose import is recorded: a late failure report (a holder that lost its
  // claim while its import() ran on) must not stand beside a successful import.
  importFailed: `
    UPDATE messages SET import_error = @error, updated_at = @now
     WHERE message_id = @messageId AND transfer = @transfer AND imported_at IS NULL`,
  imported: `
    UPDATE messages SET imported_at = COALESCE(imported_at, @now), import_location = @location,
                        import_error = NULL, updated_at = @now
     WHERE message_id = @messageId AND transfer = @transfer`,
  acknowledged: `
    UPDATE messages SET acknowledged_at = @now, acknowledgement = @acknowledgement,
                        failure_reason = @reason, updated_at = @now
     WHERE message_id = @messageId AND transfer = @transfer`,
  get: 'SELECT * FROM messages WHERE message_id = ? AND transfer = ?',
  // Inbound first: the order of the primary key's second column.
  sides: 'SELECT * FROM messages WHERE message_id = ? ORDER BY transfer',
  changes:
    'SELECT * FROM status_changes WHERE message_id = ? AND transfer = ? ORDER BY occurred_at',
  transitions: `
    SELECT event_id, former_value, new_value FROM status_changes
     WHERE message_id = ? AND transfer = ? AND kind = ? AND occurred_at = ?`,
  // Only messages still open: the partial index messages_open holds no final message.
  stale: `
    SELECT * FROM messages
     WHERE last_event_at < ? AND ${OPEN_MESSAGE}
     ORDER BY last_event_at LIMIT ?`,
} as const;

/**
 * What a status value may replace, by its source (StatusSource in store.ts), in one statement
 * so a concurrent writer can never move a status backwards.
 */
export function applyStatusSql(kind: StatusKind): string {
  const { value, at, confirmed } = STATUS_COLUMNS[kind];
  return `
    UPDATE messages SET ${value} = @value, ${at} = @at, ${confirmed} = @fetched,
                        updated_at = @now
     WHERE message_id = @messageId AND transfer = @transfer
       AND (${at} IS NULL OR ${at} < @at
            OR (${at} = @at AND (@fetched = 1 OR (@change = 1 AND ${confirmed} = 0))))`;
}

/**
 * The status sink's outbox (SinkOutboxStore in store.ts). A stream is one message side and
 * kind; only its head (lowest undelivered seq) is ever handed out. Undelivered notices are
 * found through partial indexes that hold the backlog only (migration 010), never history.
 */
export const SINK_OUTBOX_SQL = {
  // With the status write that stored the value, in its transaction; a notice id queued
  // already is not queued again.
  enqueue: `
    INSERT INTO sink_outbox (notice_id, message_id, transfer, kind, notice, created_at,
                             next_attempt_at)
    VALUES (@noticeId, @messageId, @transfer, @kind, @notice, @now, @now)
    ON CONFLICT (notice_id) DO NOTHING`,
  // Stream heads that are due and not leased, in queue order: the undelivered notices walked
  // through sink_outbox_pending (due read from the index), each non-head passed over after a
  // probe of sink_outbox_stream.
  due: `
    SELECT o.* FROM sink_outbox o
     WHERE o.delivered_at IS NULL AND o.next_attempt_at <= @now
       AND (o.locked_until IS NULL OR o.locked_until < @now)
       AND o.seq = (SELECT min(p.seq) FROM sink_outbox p
                     WHERE p.message_id = o.message_id AND p.transfer = o.transfer
                       AND p.kind = o.kind AND p.delivered_at IS NULL)
     ORDER BY o.seq LIMIT @limit`,
  lease: 'UPDATE sink_outbox SET locked_until = @lockedUntil WHERE seq = @seq',
  delivered: `
    UPDATE sink_outbox SET delivered_at = @now, locked_until = NULL
     WHERE seq = @seq AND delivered_at IS NULL`,
  failed: `
    UPDATE sink_outbox
       SET attempts = attempts + 1, last_error = @error, next_attempt_at = @nextAttemptAt,
           locked_until = NULL
     WHERE seq = @seq AND delivered_at IS NULL`,
  // The backlog only (sink_outbox_pending), not history.
  stats: `
    SELECT COUNT(*) AS pending, COALESCE(SUM(attempts > 0), 0) AS failing,
           MIN(created_at) AS oldest
      FROM sink_outbox WHERE delivered_at IS NULL`,
  // Newest first: the table in seq order walked backwards, cut off by LIMIT.
  listAll: 'SELECT * FROM sink_outbox ORDER BY seq DESC LIMIT ?',
  listPending: `
    SELECT * FROM sink_outbox WHERE delivered_at IS NULL ORDER BY seq DESC LIMIT ?`,
  listFailing: `
    SELECT * FROM sink_outbox WHERE delivered_at IS NULL AND attempts > 0
     ORDER BY seq DESC LIMIT ?`,
  // Delivered notices, oldest delivery first (sink_outbox_delivered); never an undelivered one.
  pruneDelivered: `
    DELETE FROM sink_outbox WHERE seq IN (
      SELECT seq FROM sink_outbox WHERE delivered_at IS NOT NULL AND delivered_at < ?
       ORDER BY delivered_at LIMIT ?)`,
} as const;

/**
 * Retention's statements (src/consumer/retention): each walks an index from its oldest entry
 * and stops at LIMIT, so a batch costs the same whatever the history.
 */
export const RETENTION_SQL = {
  mark: 'SELECT through_at, through_id FROM retention_marks WHERE name = ?',
  setMark: `
    INSERT INTO retention_marks (name, through_at, through_id) VALUES (@name, @at, @id)
    ON CONFLICT (name) DO UPDATE SET through_at = excluded.through_at,
                                     through_id = excluded.through_id`,
  // Events after the mark in arrival order: the bodies pass resumes where it stopped, so it
  // never walks again over events whose bodies are already gone.
  arrivedAfter: `
    SELECT rowid AS id, event_id, occurred_at, received_at, state FROM events
     WHERE (received_at, rowid) > (@at, @id) AND received_at < @before
     ORDER BY received_at, rowid LIMIT @limit`,
  // A body is dropped by deleting its row and inserting it again without it, under the same
  // rowid: an UPDATE that shrinks a row leaves its page as empty as the body was large (a
  // page per event, for good), where a delete lets SQLite merge the page with its neighbours.
  withBody: `
    SELECT rowid AS id, * FROM events
     WHERE occurred_at = @occurredAt AND event_id = @eventId AND length(body) > 0`,
  deleteEvent: 'DELETE FROM events WHERE rowid = ?',
  insertWithoutBody: `
    INSERT INTO events (rowid, event_id, action, transfer, message_id, party, occurred_at, test,
                        flag, body, received_at, state, attempts, next_attempt_at, locked_until,
                        last_error, updated_at, claim_token, resolution)
    VALUES (@id, @event_id, @action, @transfer, @message_id, @party, @occurred_at, @test, @flag,
            ${DROPPED_BODY}, @received_at, @state, @attempts, @next_attempt_at, @locked_until,
            @last_error, @updated_at, @claim_token, @resolution)`,
  finishedBefore: `
    SELECT rowid AS id, event_id, received_at FROM events
     WHERE state = @state AND received_at < @before
     ORDER BY received_at LIMIT @limit`,
  // Dead events nobody will act on any more (RetentionStore.pruneDeadEvents): walks the dead
  // ones in arrival order; a dead event of an open message younger than @anyBefore is passed
  // over at each batch, which costs what the dead events retention keeps, not history.
  deadBefore: `
    SELECT e.rowid AS id, e.event_id, e.received_at FROM events e
     WHERE e.state = 'dead' AND e.received_at < @settledBefore
       AND (e.received_at < @anyBefore OR EXISTS (
             SELECT 1 FROM messages m
              WHERE m.message_id = e.message_id AND m.transfer = e.transfer
                AND (m.acknowledged_at IS NOT NULL
                     OR m.delivery_status IN ('delivered', 'failed', 'parked'))))
     ORDER BY e.received_at LIMIT @limit`,
  remember: `
    INSERT INTO seen_events (event_id, received_at) VALUES (?, ?)
    ON CONFLICT (event_id) DO NOTHING`,
  deleteEventChange: 'DELETE FROM status_changes WHERE event_id = ?',
  forgetSeen: `
    DELETE FROM seen_events WHERE event_id IN (
      SELECT event_id FROM seen_events WHERE received_at < ? ORDER BY received_at LIMIT ?)`,
  // Only final messages: the partial index messages_closed holds no open one.
  closedBefore: `
    SELECT message_id, transfer, import_location FROM messages
     WHERE last_event_at < ? AND delivery_status IN ('delivered', 'failed', 'parked')
     ORDER BY last_event_at LIMIT ?`,
  deleteMessage: 'DELETE FROM messages WHERE message_id = ? AND transfer = ?',
  deleteMessageChanges: 'DELETE FROM status_changes WHERE message_id = ? AND transfer = ?',
} as const;

export const HEALTH_SQL = {
  touch: 'UPDATE health SET checked_at = ? WHERE id = 1',
} as const;

/** The states a submitter works on, as SQL (submissions_due is partial on exactly these). */
const OPEN_SUBMISSION = "state IN ('queued', 'sending', 'unknown')";

export const SUBMISSION_SQL = {
  add: `
    INSERT INTO submissions (invoice_no, body, body_hash, state, next_attempt_at, created_at)
    VALUES (@invoiceNo, @body, @bodyHash, 'queued', @now, @now)
    ON CONFLICT (invoice_no) DO NOTHING`,
  get: 'SELECT * FROM submissions WHERE invoice_no = ?',
  // Oldest due first, through the partial index of open submissions.
  due: `
    SELECT * FROM submissions
     WHERE ${OPEN_SUBMISSION} AND next_attempt_at <= @now
       AND (locked_until IS NULL OR locked_until < @now)
     ORDER BY next_attempt_at LIMIT @limit`,
  lease: 'UPDATE submissions SET locked_until = @lockedUntil WHERE invoice_no = @invoiceNo',
  sending: `
    UPDATE submissions
       SET state = 'sending', attempts = attempts + 1,
           first_attempt_at = COALESCE(first_attempt_at, @now)
     WHERE invoice_no = @invoiceNo AND ${OPEN_SUBMISSION}`,
  submitted: `
    UPDATE submissions
       SET state = 'submitted', message_id = @messageId, resolved_by = @resolvedBy,
           settled_at = @now, locked_until = NULL, last_error = NULL, body = ''
     WHERE invoice_no = @invoiceNo AND ${OPEN_SUBMISSION}`,
  // Only after an attempt started no later than slack after the message's arrival.
  created: `
    UPDATE submissions
       SET state = 'submitted', message_id = @messageId, resolved_by = 'created',
           settled_at = @now, locked_until = NULL, last_error = NULL, body = ''
     WHERE invoice_no = @invoiceNo AND ${OPEN_SUBMISSION}
       AND first_attempt_at IS NOT NULL AND first_attempt_at <= @timeReceived + @slackMs`,
  refused: `
    UPDATE submissions
       SET state = 'refused', last_error = @reason, settled_at = @now, locked_until = NULL,
           body = ''
     WHERE invoice_no = @invoiceNo AND ${OPEN_SUBMISSION}`,
  retry: `
    UPDATE submissions
       SET state = @state, last_error = @error, next_attempt_at = @nextAttemptAt,
           locked_until = NULL
     WHERE invoice_no = @invoiceNo AND ${OPEN_SUBMISSION}`,
  stats: `
    SELECT COALESCE(SUM(state = 'queued'), 0) AS queued,
           COALESCE(SUM(state = 'sending'), 0) AS sending,
           COALESCE(SUM(state = 'unknown'), 0) AS unknown,
           MIN(created_at) AS oldest
      FROM submissions INDEXED BY submissions_due WHERE ${OPEN_SUBMISSION}`,
  // Settled invoices, oldest first (submissions_settled); never an open one.
  pruneSettled: `
    DELETE FROM submissions WHERE invoice_no IN (
      SELECT invoice_no FROM submissions WHERE settled_at IS NOT NULL AND settled_at < ?
       ORDER BY settled_at LIMIT ?)`,
  listAll: 'SELECT * FROM submissions ORDER BY created_at DESC LIMIT ?',
  listState: 'SELECT * FROM submissions WHERE state = ? ORDER BY created_at DESC LIMIT ?',
} as const;
