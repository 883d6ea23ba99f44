/**
 * Retention's statements on SQLite, by name (sqlite-retention.ts prepares them; the query-plan
 * test EXPLAINs each one): each walks an index from its oldest entry and stops at LIMIT, so a
 * batch costs the same whatever the history.
 */

/** A body retention has dropped is stored empty (a signed event's body never is). */
export const DROPPED_BODY = "x''";

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
                        last_error, updated_at, claim_token, resolution, trace_parent)
    VALUES (@id, @event_id, @action, @transfer, @message_id, @party, @occurred_at, @test, @flag,
            ${DROPPED_BODY}, @received_at, @state, @attempts, @next_attempt_at, @locked_until,
            @last_error, @updated_at, @claim_token, @resolution, @trace_parent)`,
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
