/** Message claims on SQLite (see migrations/004_message_claims.sql). */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import {
  type ClaimColumns,
  type ClaimRequest,
  type ClaimStore,
  type MessageClaim,
  toClaim,
} from '../claims.ts';
import { CLAIM_SQL } from './claims-queries.ts';
import type { Synchronous } from './synchronous.ts';

/**
 * The statements, shared with the event store, whose claimDue takes claims inside its own
 * transaction. Every statement is one atomic step; SQLite's write lock orders them across
 * processes.
 */
export function createClaimStatements(db: Database.Database) {
  // Free, or held past its lease: take it. A row still in its lease is left as it is.
  const take = db.prepare<{
    messageId: string;
    holder: string;
    token: string;
    leaseUntil: number;
    now: number;
  }>(CLAIM_SQL.take);
  // Still ours as long as nobody replaced the token, even if the lease ran out unnoticed.
  const extend = db.prepare<{ messageId: string; token: string; leaseUntil: number }>(
    CLAIM_SQL.extend,
  );
  const drop = db.prepare<{ messageId: string; token: string }>(CLAIM_SQL.drop);
  return {
    acquire(messageId: string, { holder, now, leaseMs }: ClaimRequest): MessageClaim | undefined {
      const claim = { messageId, holder, token: randomUUID(), leaseUntil: now + leaseMs };
      return take.run({ ...claim, now }).changes === 1 ? claim : undefined;
    },
    release(claim: MessageClaim): void {
      drop.run({ messageId: claim.messageId, token: claim.token });
    },
    extend(claim: MessageClaim, leaseUntil: number): boolean {
      return (
        extend.run({ messageId: claim.messageId, token: claim.token, leaseUntil }).changes === 1
      );
    },
  };
}

export type ClaimStatements = ReturnType<typeof createClaimStatements>;

/** Claim writes, for the writer thread. */
export function claimWrites(
  db: Database.Database,
): Synchronous<Omit<ClaimStore, 'get' | 'holders'>> {
  const statements = createClaimStatements(db);
  const dropHolder = db.prepare<[string]>(CLAIM_SQL.dropHolder);
  return {
    acquire: statements.acquire,
    renew(claim, { now, leaseMs }) {
      const leaseUntil = now + leaseMs;
      return statements.extend(claim, leaseUntil) ? { ...claim, leaseUntil } : undefined;
    },
    release: statements.release,
    releaseHolder(holder) {
      return dropHolder.run(holder).changes;
    },
  };
}

/** Claim reads, for the main thread. */
export function claimReads(
  db: Database.Database,
): Synchronous<Pick<ClaimStore, 'get' | 'holders'>> {
  const getRow = db.prepare<[string], ClaimColumns>(CLAIM_SQL.get);
  const liveHolders = db.prepare<[number], { holder: string }>(CLAIM_SQL.liveHolders);
  return {
    get(messageId) {
      const row = getRow.get(messageId);
      return row === undefined ? undefined : toClaim(row);
    },
    holders(now) {
      return liveHolders.all(now).map((row) => row.holder);
    },
  };
}
