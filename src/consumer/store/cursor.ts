/**
 * Listing cursors: the position of the last event of a page, as (receivedAt, arrival number),
 * the key of the index the listing walks. Base64url, so callers treat it as opaque.
 */
import { type EventCursor, type EventPage, InvalidCursorError, type StoredEvent } from './store.ts';

export interface Position {
  at: number;
  id: number;
}

export function encodeCursor(position: Position): EventCursor {
  return Buffer.from(`${position.at}.${position.id}`).toString('base64url');
}

export function decodeCursor(cursor: EventCursor): Position {
  const match = /^(\d{1,16})\.(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (match === null) throw new InvalidCursorError('not a cursor of this listing');
  return { at: Number(match[1]), id: Number(match[2]) };
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
