/**
 * Listing cursors: the position of the last event of a page, as (receivedAt, arrival number),
 * the key of the index the listing walks. Base64url, so callers treat it as opaque.
 */
import type { EventCursor, EventPage, StoredEvent } from './events.ts';
import { InvalidCursorError } from './store.ts';

export interface Position {
  at: number;
  id: number;
}

export function encodeCursor(position: Position): EventCursor {
  return Buffer.from(`${position.at}.${position.id}`).toString('base64url');
}

/**
 * The position a cursor holds, or InvalidCursorError (the admin routes' 400). Both numbers must
 * be safe integers: past 2^53 Number() rounds, so SQLite would page from somewhere else, and
 * past 2^63 PostgreSQL refuses the bigint and the listing failed with 500.
 */
export function decodeCursor(cursor: EventCursor): Position {
  const match = /^(\d{1,20})\.(\d{1,20})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (match === null) throw new InvalidCursorError('not a cursor of this listing');
  const position = { at: Number(match[1]), id: Number(match[2]) };
  if (!Number.isSafeInteger(position.at) || !Number.isSafeInteger(position.id)) {
    throw new InvalidCursorError('a position past the largest safe integer (2^53 - 1)');
  }
  return position;
}

/** Before any real position: where a newest-first listing starts. */
export const NEWEST: Position = { at: Number.MAX_SAFE_INTEGER, id: Number.MAX_SAFE_INTEGER };

/**
 * A page of up to `limit` rows, newest first: `next` points after its last row, or is null
 * when the page is not full (nothing older is left).
 */
export function eventPage<Row>(
  rows: Row[],
  limit: number,
  toEvent: (row: Row) => StoredEvent,
  positionOf: (row: Row) => Position,
): EventPage {
  const last = rows.at(-1);
  return {
    items: rows.map(toEvent),
    next: rows.length < limit || last === undefined ? null : encodeCursor(positionOf(last)),
  };
}
