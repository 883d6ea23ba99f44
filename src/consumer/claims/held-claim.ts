/**
 * Holding a message claim while its work runs. The lease is short (CLAIM_LEASE_MS) so that a
 * crashed holder's messages are taken over soon; a live holder renews it every third of a
 * lease for as long as it works, however long an import takes. The claim can still be lost:
 * when renewals cannot happen for a whole lease (a frozen process, a store that refuses
 * writes), another handler may take the message over. So before every step that must not
 * happen twice or out of turn (import, acknowledgement), the holder confirms the claim in the
 * store itself, and `signal` aborts the work in hand as soon as the loss is noticed.
 */
import type { Logger } from 'pino';
import type { ClaimStore, MessageClaim } from '../store/claims.ts';

/** The claim passed to someone else; the holder must stop before acting on the message. */
export class ClaimLostError extends Error {
  override readonly name = 'ClaimLostError';
  readonly messageId: string;
  constructor(messageId: string) {
    super(`the claim on message ${messageId} was lost to another handler`);
    this.messageId = messageId;
  }
}

/** What a handler needs of the claim it works under. */
export interface ClaimGuard {
  /** Aborts when the claim is lost or the holder shuts down. */
  readonly signal: AbortSignal;
  /** Renews the claim in the store now; throws ClaimLostError if it passed to someone else. */
  confirm(): Promise<void>;
}

export interface HeldClaim extends ClaimGuard {
  /** The claim as last renewed. */
  current(): MessageClaim;
  /** Stops renewing; does not release (the caller settles or releases). */
  stop(): void;
}

export function holdClaim(deps: {
  claims: ClaimStore;
  claim: MessageClaim;
  leaseMs: number;
  now: () => number;
  logger: Logger;
  /** Aborts the work too, for a shutdown. */
  signal?: AbortSignal;
}): HeldClaim {
  const { claims, leaseMs, now, logger } = deps;
  let claim = deps.claim;
  const controller = new AbortController();
  const lose = () => {
    if (!controller.signal.aborted) controller.abort(new ClaimLostError(claim.messageId));
  };
  const stopOnShutdown = () => controller.abort(deps.signal?.reason);
  deps.signal?.addEventListener('abort', stopOnShutdown, { once: true });

  const renew = async (): Promise<boolean> => {
    const renewed = await claims.renew(claim, { now: now(), leaseMs });
    if (renewed === undefined) {
      lose();
      return false;
    }
    claim = renewed;
    return true;
  };

  const timer = setInterval(
    () => {
      renew().catch((error: unknown) => {
        // The store refused the write (locked, full disk). Keep trying while the lease lasts;
        // past it, someone may already have taken over.
        logger.warn({ err: error, messageId: claim.messageId }, 'could not renew a message claim');
        if (now() >= claim.leaseUntil) lose();
      });
    },
    Math.max(1, Math.floor(leaseMs / 3)),
  );
  // Renewal must not keep a finished process alive; stop() ends it anyway.
  timer.unref();

  return {
    signal: controller.signal,
    async confirm() {
      if (controller.signal.aborted || !(await renew())) {
        throw controller.signal.reason instanceof Error
          ? controller.signal.reason
          : new ClaimLostError(claim.messageId);
      }
    },
    current: () => claim,
    stop() {
      clearInterval(timer);
      deps.signal?.removeEventListener('abort', stopOnShutdown);
    },
  };
}
