/**
 * The ordering rule for status events (docs/retries.md#delivery-semantics: duplicates, no ordering guarantee), as a
 * pure function so every arrival order can be tested without I/O.
 *
 * Per message, transfer and status kind the store keeps the value, the occurredAt (ms) of what
 * set it, and whether that value was confirmed by the service (fetched with GET /messages/:mid,
 * so it already reflects every change up to `at`). For an event of that kind:
 *
 *   1. older than the stored value                          -> stale, nothing changes;
 *   2. same millisecond as a confirmed value                -> stale (the fetch reflects it);
 *   3. same millisecond as an unconfirmed value (a tie)     -> the end of the chain formed by
 *      every change of that millisecond received so far, when the chain is unambiguous;
 *      otherwise ask the service (a cycle such as delivered -> parked -> delivered has no
 *      end the events alone can name, nor do changes with a gap between them);
 *   4. newer, and continuing from the stored value          -> apply newValue;
 *   5. newer, and the stored value is not its formerValue   -> ask the service (a change was
 *      missed, or this is the first news of the message).
 *
 * occurredAt has millisecond resolution and several changes of one status can share a
 * millisecond, so rule 3 is what makes the outcome independent of arrival order: once every
 * change of the newest millisecond has arrived, the chain's end is the service's value, or a
 * fetch was made after all of them occurred. A fetched value is stored as confirmed at the
 * later of the event's occurredAt and the time the service answered (its Date header), so an
 * event older than the fetch can never overwrite it.
 */

/** The stored state of one status kind of one side of a message. */
export interface StoredStatus {
  value: string | null;
  /** occurredAt (ms) of the change, descriptor or fetch that set the value; null if none. */
  at: number | null;
  /** The value came from the service itself and reflects every change up to `at`. */
  confirmed: boolean;
}

export interface StatusTransition {
  formerValue: string;
  newValue: string;
}

export type StatusDecision =
  | { outcome: 'stale' }
  | { outcome: 'apply'; value: string }
  | { outcome: 'refresh' };

/**
 * @param change the event's transition and occurredAt (ms)
 * @param sameMillisecond the other changes of this kind already received for this side with
 *   the same occurredAt (the event itself excluded); read only for a tie
 */
export function decideStatusChange(
  stored: StoredStatus,
  change: StatusTransition & { at: number },
  sameMillisecond: readonly StatusTransition[],
): StatusDecision {
  if (stored.at !== null && change.at < stored.at) return { outcome: 'stale' };
  if (stored.at !== null && change.at === stored.at) {
    if (stored.confirmed) return { outcome: 'stale' };
    const end = chainEnd([...sameMillisecond, change]);
    return end === undefined ? { outcome: 'refresh' } : { outcome: 'apply', value: end };
  }
  return stored.value === change.formerValue
    ? { outcome: 'apply', value: change.newValue }
    : { outcome: 'refresh' };
}

/**
 * The value a set of transitions ends at, if they can be put in one order only as far as the
 * result goes: they must form a single connected chain (an Euler path) from one value to a
 * different one. In a chain every value is left as often as it is entered, except the start
 * (left once more) and the end (entered once more), whatever order the changes took between.
 * Returns undefined for a closed cycle (the end is the start, which the changes do not name),
 * for changes that do not connect (one is missing between them), and for anything else that
 * no single chain explains.
 */
export function chainEnd(changes: readonly StatusTransition[]): string | undefined {
  const balance = new Map<string, number>();
  const parent = new Map<string, string>();
  const root = (value: string): string => {
    let node = value;
    for (let up = parent.get(node); up !== undefined && up !== node; up = parent.get(node)) {
      node = up;
    }
    return node;
  };
  for (const { formerValue, newValue } of changes) {
    balance.set(formerValue, (balance.get(formerValue) ?? 0) + 1);
    balance.set(newValue, (balance.get(newValue) ?? 0) - 1);
    if (!parent.has(formerValue)) parent.set(formerValue, formerValue);
    if (!parent.has(newValue)) parent.set(newValue, newValue);
    parent.set(root(formerValue), root(newValue));
  }

  let start: string | undefined;
  let end: string | undefined;
  for (const [value, net] of balance) {
    if (net === 1 && start === undefined) start = value;
    else if (net === -1 && end === undefined) end = value;
    else if (net !== 0) return undefined;
  }
  if (start === undefined || end === undefined) return undefined;
  const component = root(start);
  for (const value of balance.keys()) if (root(value) !== component) return undefined;
  return end;
}
