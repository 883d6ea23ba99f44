/** Message claims on PostgreSQL (see the contract in ../claims.ts). */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { type ClaimColumns, type ClaimStore, toClaim } from '../claims.ts';

export function createPostgresClaimStore(pool: pg.Pool): ClaimStore {
  return {
    // Free, or held past its lease: take it. One statement: a process racing for the same
    // message waits for the other's commit, then finds the claim live and gets nothing.
    async acquire(messageId, { holder, now, leaseMs }) {
      const { rows } = await pool.query<ClaimColumns>(
        `INSERT INTO message_claims (message_id, holder, token, lease_until, acquired_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (message_id) DO UPDATE
            SET holder = EXCLUDED.holder, token = EXCLUDED.token,
                lease_until = EXCLUDED.lease_until, acquired_at = EXCLUDED.acquired_at
          WHERE message_claims.lease_until < $5
         RETURNING message_id, holder, token, lease_until`,
        [messageId, holder, randomUUID(), now + leaseMs, now],
      );
      return rows[0] === undefined ? undefined : toClaim(rows[0]);
    },
    // Still ours as long as nobody replaced the token, even if the lease ran out unnoticed.
    async renew(claim, { now, leaseMs }) {
      const { rows } = await pool.query<ClaimColumns>(
        `UPDATE message_claims SET lease_until = $3 WHERE message_id = $1 AND token = $2
         RETURNING message_id, holder, token, lease_until`,
        [claim.messageId, claim.token, now + leaseMs],
      );
      return rows[0] === undefined ? undefined : toClaim(rows[0]);
    },
    async release(claim) {
      await pool.query('DELETE FROM message_claims WHERE message_id = $1 AND token = $2', [
        claim.messageId,
        claim.token,
      ]);
    },
    async get(messageId) {
      const { rows } = await pool.query<ClaimColumns>(
        'SELECT message_id, holder, token, lease_until FROM message_claims WHERE message_id = $1',
        [messageId],
      );
      return rows[0] === undefined ? undefined : toClaim(rows[0]);
    },
    async holders(now) {
      const { rows } = await pool.query<{ holder: string }>(
        'SELECT DISTINCT holder FROM message_claims WHERE lease_until >= $1',
        [now],
      );
      return rows.map((row) => row.holder);
    },
    async releaseHolder(holder) {
      const { rowCount } = await pool.query('DELETE FROM message_claims WHERE holder = $1', [
        holder,
      ]);
      return rowCount ?? 0;
    },
  };
}
