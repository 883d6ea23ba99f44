/**
 * One event's turn in the worker (worker.ts): its message's claim is held, and renewed, while
 * the handler works and until the outcome is written:
 *
 *   handler resolves             -> done | skipped
 *   handler throws, transient    -> pending, next attempt after a backoff
 *   permanent, or last attempt   -> dead (listed by /admin/events?state=dead, replayable)
 *   the claim was lost meanwhile -> nothing written: its new holder handles the event
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { ClaimLostError, type HeldClaim, holdClaim } from '../claims/held-claim.ts';
import type { ClaimStore } from '../store/claims.ts';
import type { ClaimedEvent, EventStore, Settlement, StoredEvent } from '../store/events.ts';
import { ATTR, errorType, markFailed } from '../tracing/tracer.ts';
import { describeError, isPermanent, localFault } from './errors.ts';
import { type ClaimTiming, inProcessSpan } from './event-spans.ts';
import type { EventHandler, Handled } from './handle-event.ts';

export interface EventTurnDeps {
  events: EventStore;
  claims: ClaimStore;
  handle: EventHandler;
  logger: Logger;
  now: () => number;
  /** Attempts before an event is dead-lettered. */
  maxAttempts: number;
  /** Lease of the message claim, renewed while the turn lasts. */
  leaseMs: number;
  /** Delay before retrying a failed event, by its attempts so far. */
  retryDelay: (attempt: number) => number;
  /** Keep no raw body once an event is done or skipped (RETENTION_BODY_DAYS=0). */
  dropBodiesWhenDone: boolean;
  /** Told how each event ended its turn (metrics). */
  onSettled: (event: StoredEvent, state: Settlement['state'], seconds: number) => void;
  /** Aborted at shutdown: the handler in hand sees it and ends its turn early. */
  signal: AbortSignal;
  /** Called as each turn ends, outcome written or not: a slot of the worker is free again. */
  onTurnEnd: () => void;
}

/** What one turn works with: the event, its held claim, its log and its clock. */
interface Turn {
  event: ClaimedEvent;
  held: HeldClaim;
  log: Logger;
  /** Seconds since the turn started. */
  seconds: () => number;
  /** The turn's span (event-spans.ts): its outcome goes there. */
  span: Span;
}

/**
 * The function that runs one claimed event's turn; it settles the event itself. `claim`: when
 * the claim that took it ran, for the event's inbox wait span (event-spans.ts).
 */
export function createEventTurn(
  deps: EventTurnDeps,
): (event: ClaimedEvent, claim: ClaimTiming) => Promise<void> {
  return (event, claim) => inProcessSpan(event, claim, (span) => runTurn(deps, event, span));
}

async function runTurn(deps: EventTurnDeps, event: ClaimedEvent, span: Span): Promise<void> {
  const { claims, handle, logger, now, leaseMs } = deps;
  const started = performance.now();
  const log = logger.child({
    eventId: event.eventId,
    action: event.action,
    messageId: event.messageId,
  });
  const held = holdClaim({
    claims,
    claim: event.claim,
    leaseMs,
    now,
    logger: log,
    signal: deps.signal,
  });
  const turn: Turn = {
    event,
    held,
    log,
    seconds: () => (performance.now() - started) / 1000,
    span,
  };
  try {
    let handled: Handled;
    try {
      handled = await handle(event, held);
    } catch (error) {
      await settleFailure(deps, turn, error);
      return;
    }
    const settlement: Settlement = {
      state: handled.outcome,
      dropBody: deps.dropBodiesWhenDone,
    };
    const writes = handled.writes ?? [];
    // Asked for in the turn the handler asked for its last writes, the settlement is
    // committed with them; if one of them fails, the event failed, and nothing is settled.
    const first =
      writes.length === 0 ? undefined : deps.events.settle(event, settlement, deps.now(), writes);
    const failed = await Promise.all(writes).then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    if (failed !== undefined) {
      await first?.catch(() => {});
      await settleFailure(deps, turn, failed.error);
      return;
    }
    if (await writeOutcome(deps, turn, settlement, first)) {
      log.debug({ state: settlement.state }, 'event handled');
    }
  } finally {
    held.stop();
    deps.onTurnEnd();
  }
}

/**
 * Where a failed turn goes, by the one rule of retry or dead-letter (errors.ts says which
 * errors are permanent): nowhere when another handler took the message over, dead when the
 * error is permanent or the attempts are spent, otherwise pending again after a backoff.
 */
async function settleFailure(deps: EventTurnDeps, turn: Turn, error: unknown): Promise<void> {
  const { event, log } = turn;
  // By its type only, without recordError's event: the turn's outcome says when.
  markFailed(turn.span, errorType(error));
  // The error and what it wraps (`fetch failed <- connect ECONNREFUSED ...`), bounded: the
  // log lines below and the event's stored lastError.
  const message = describeError(error);
  // A full or read-only disk here is for the operator to fix, and said so in the log.
  const hint = localFault(error);
  const fault = hint === undefined ? {} : { localFault: hint };
  if (error instanceof ClaimLostError) {
    log.warn({ error: message }, 'stopped: another handler took the message over');
  } else if (isPermanent(error) || event.attempts >= deps.maxAttempts) {
    if (await writeOutcome(deps, turn, { state: 'dead', error: message })) {
      log.error(
        { err: error, error: message, attempts: event.attempts, ...fault },
        'event dead-lettered',
      );
    }
  } else {
    const nextAttemptAt = deps.now() + deps.retryDelay(event.attempts);
    if (await writeOutcome(deps, turn, { state: 'pending', nextAttemptAt, error: message })) {
      log[hint === undefined ? 'warn' : 'error'](
        { attempts: event.attempts, error: message, nextAttemptAt, ...fault },
        'event will be retried',
      );
    }
  }
}

/**
 * Writes the outcome while the claim is still held (and renewed); true once written. A store
 * that refuses the write (a full disk, a lock held elsewhere) is asked again soon, not left to
 * the end of the lease; if the claim is lost meanwhile, its new holder handles the event.
 * `first`: the first attempt, already asked for (with the handler's last writes).
 */
async function writeOutcome(
  deps: EventTurnDeps,
  { event, held, log, seconds, span }: Turn,
  settlement: Settlement,
  first?: Promise<boolean>,
): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      const settled = await ((attempt === 0 ? first : undefined) ??
        deps.events.settle(event, settlement, deps.now()));
      span.setAttribute(ATTR.outcome, settled ? settlement.state : 'claim_lost');
      if (settled) deps.onSettled(event, settlement.state, seconds());
      else
        log.warn({ state: settlement.state }, 'claim lost before settling; left to its new holder');
      return settled;
    } catch (error) {
      if (held.signal.aborted) {
        log.error({ err: error }, 'could not write the outcome; the event is taken again later');
        return false;
      }
      const delayMs = Math.min(250 * 2 ** attempt, 5000);
      log.warn({ err: error, delayMs }, 'could not write the outcome; trying again');
      await delay(delayMs, undefined, { signal: held.signal }).catch(() => {});
    }
  }
}
