/**
 * Finding an event by its eventId alone, on both stores. The inbox is keyed by
 * (occurredAt, eventId) (see store/README.md); an eventId alone is found through
 * events_settled, a partial index of finished events, and for open events through the backlog.
 */
import type { EventState, ReplayOutcome } from './events.ts';

/**
 * The WHERE of events_settled (SQLite migration 008, PostgreSQL 004), word for word: SQLite
 * uses a partial index only for a query that repeats its term.
 */
export const SETTLED = "state IN ('dead', 'done', 'skipped')";

/** Open events: as many as the backlog, found through events_due. */
export const OPEN = "state IN ('pending', 'processing')";

/**
 * `columns` of the event whose eventId is `param` (`@eventId`, `$1`), finished or open. `open`
 * is the table the open half reads: SQLite names the backlog index there, because with
 * statistics saying occurred_at repeats it would rather skip-scan the key.
 */
export function byEventIdSql(columns: string, param: string, open = 'events'): string {
  return `
    SELECT ${columns} FROM events WHERE event_id = ${param} AND ${SETTLED}
    UNION ALL
    SELECT ${columns} FROM ${open} WHERE event_id = ${param} AND ${OPEN}
    LIMIT 1`;
}

/** Why a replay changed nothing, from the row byEventIdSql found (or its absence). */
export function whyNotReplayed(
  row: { state: EventState; size: number } | undefined,
): Exclude<ReplayOutcome, 'replayed'> {
  if (row === undefined) return 'not_found';
  return row.state === 'pending' || row.state === 'processing' ? 'not_replayable' : 'body_dropped';
}
