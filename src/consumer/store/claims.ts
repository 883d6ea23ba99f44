/**
 * Message claims: one message, one handler. Whatever handles a message (the worker for an
 * event, reconciliation for a message the service lists as pending, a status refresh) first
 * takes that message's claim: a lease until a time, with a token that changes at every
 * acquisition. The holder renews it while it works; a holder that dies stops renewing and,
 * once the lease ends, anyone may take the claim over. Writes that act for a claim (settling
 * its event) name the token and do nothing when the claim has passed to someone else.
 */

/** A held claim on one message (see the header of this file). */
export interface MessageClaim {
  messageId: string;
  /** Who holds it, for operators and for releasing a dead local process's claims. */
  holder: string;
  /** Unique to this acquisition: writes for the claim are fenced by it. */
  token: string;
  /** Ms since the epoch; after it, the claim may be taken over. */
  leaseUntil: number;
}

export interface ClaimRequest {
  holder: string;
  now: number;
  leaseMs: number;
}

export interface ClaimStore {
  /** Takes the message's claim if nobody holds it or its lease has ended; else undefined. */
  acquire(messageId: string, request: ClaimRequest): Promise<MessageClaim | undefined>;
  /** Extends a held claim to `now + leaseMs`; undefined when it was lost (taken over). */
  renew(
    claim: MessageClaim,
    request: { now: number; leaseMs: number },
  ): Promise<MessageClaim | undefined>;
  /** Gives a claim up (nothing happens if it was already lost). */
  release(claim: MessageClaim): Promise<void>;
  get(messageId: string): Promise<MessageClaim | undefined>;
  /** The holders of unexpired claims, for deciding which belong to a dead local process. */
  holders(now: number): Promise<string[]>;
  /** Ends every claim of `holder` at once (its process is known to be gone); returns how many. */
  releaseHolder(holder: string): Promise<number>;
}

// What both implementations share: how a stored row reads back.

/** A row of the message_claims table, as both stores read it. */
export interface ClaimColumns {
  message_id: string;
  holder: string;
  token: string;
  lease_until: number;
}

export function toClaim(row: ClaimColumns): MessageClaim {
  return {
    messageId: row.message_id,
    holder: row.holder,
    token: row.token,
    leaseUntil: row.lease_until,
  };
}
