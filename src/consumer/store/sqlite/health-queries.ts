/** The readiness probe's write on SQLite (sqlite-writes.ts; the query-plan test EXPLAINs it). */

export const HEALTH_SQL = {
  touch: 'UPDATE health SET checked_at = ? WHERE id = 1',
} as const;
