/**
 * Message claims' statements on SQLite, by name (sqlite-claims.ts prepares them; the query-plan
 * test EXPLAINs each one). message_claims holds the claims in hand only, never history.
 */

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
