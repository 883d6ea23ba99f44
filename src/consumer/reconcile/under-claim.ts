/**
 * Reconciliation's work on one message runs under the message's claim (store/store.ts), the one
 * the worker takes for an event, so it never works beside the consumer's worker, a replica or
 * another run. A message someone else holds is waited for, up to a bound, by asking for its
 * claim again (10 ms apart at first, doubling to 500 ms); still held then, it is left to its
 * holder.
 */
import type { Logger } from 'pino';
import { type ClaimGuard, holdClaim } from '../claims/held-claim.ts';
import type { ClaimStore, MessageClaim } from '../store/claims.ts';

export interface UnderClaimDeps {
  claims: ClaimStore;
  /** Names this run in the claims it takes. */
  holder: string;
  /** Lease of a message claim (CLAIM_LEASE_MS), renewed while the work runs. */
  leaseMs: number;
  now: () => number;
  logger: Logger;
  sleep: (ms: number) => Promise<unknown>;
}

/** Runs `work` under the message's claim; undefined when the claim was not to be had. */
export type UnderClaim = <T>(
  messageId: string,
  waitMs: number,
  work: (claim: ClaimGuard) => Promise<T>,
) => Promise<{ result: T } | undefined>;

export function createUnderClaim(deps: UnderClaimDeps): UnderClaim {
  const { claims, holder, leaseMs, now, logger, sleep } = deps;

  /** The message's claim, waiting up to `waitMs` while someone else holds it. */
  async function acquire(messageId: string, waitMs: number): Promise<MessageClaim | undefined> {
    const giveUpAt = now() + waitMs;
    for (let pause = 10; ; pause = Math.min(pause * 2, 500)) {
      const claim = await claims.acquire(messageId, { holder, now: now(), leaseMs });
      if (claim !== undefined || now() >= giveUpAt) return claim;
      if (pause === 10) {
        const holder = (await claims.get(messageId))?.holder;
        logger.info(
          { messageId, holder, waitMs },
          'reconcile: waiting for a message another handler holds',
        );
      }
      await sleep(Math.min(pause, Math.max(0, giveUpAt - now())));
    }
  }

  return async function underClaim(messageId, waitMs, work) {
    const claim = await acquire(messageId, waitMs);
    if (claim === undefined) return undefined;
    const held = holdClaim({ claims, claim, leaseMs, now, logger });
    try {
      return { result: await work(held) };
    } finally {
      held.stop();
      await claims.release(held.current());
    }
  };
}
