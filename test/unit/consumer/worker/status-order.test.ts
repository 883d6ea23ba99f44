import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chainEnd,
  decideStatusChange,
  type StatusTransition,
  type StoredStatus,
} from '../../../../src/consumer/worker/status-order.ts';

const t = (formerValue: string, newValue: string): StatusTransition => ({ formerValue, newValue });

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

describe('chainEnd', () => {
  it('names the end of a chain whatever order its changes are listed in', () => {
    const chain = [t('received', 'pendingdelivery'), t('pendingdelivery', 'delivered')];
    for (const order of permutations(chain)) expect(chainEnd(order)).toBe('delivered');
    const long = [t('a', 'b'), t('b', 'c'), t('c', 'a'), t('a', 'd')];
    for (const order of permutations(long)) expect(chainEnd(order)).toBe('d');
  });

  it('cannot name the end of a closed cycle (it is the start, which no change names)', () => {
    expect(chainEnd([t('pendingdelivery', 'parked'), t('parked', 'pendingdelivery')])).toBe(
      undefined,
    );
    const three = [t('delivered', 'parked'), t('parked', 'pendingdelivery')];
    for (const order of permutations([...three, t('pendingdelivery', 'delivered')])) {
      expect(chainEnd(order)).toBe(undefined);
    }
  });

  it('cannot name the end when a change between them is missing', () => {
    expect(chainEnd([t('a', 'b'), t('c', 'd')])).toBe(undefined);
    // The degrees fit a chain a -> b, but the cycle c -> d -> c is not connected to it.
    expect(chainEnd([t('a', 'b'), t('c', 'd'), t('d', 'c')])).toBe(undefined);
    expect(chainEnd([t('a', 'b'), t('a', 'c')])).toBe(undefined);
  });
});

describe('decideStatusChange', () => {
  const unconfirmed = (value: string, at: number): StoredStatus => ({
    value,
    at,
    confirmed: false,
  });

  it('ignores an older event, and one of the millisecond of a confirmed value', () => {
    const change = { ...t('a', 'b'), at: 5 };
    expect(decideStatusChange(unconfirmed('a', 6), change, [])).toEqual({ outcome: 'stale' });
    expect(decideStatusChange({ value: 'a', at: 5, confirmed: true }, change, [])).toEqual({
      outcome: 'stale',
    });
  });

  it('applies a newer event that continues from the stored value, else asks the service', () => {
    expect(decideStatusChange(unconfirmed('a', 4), { ...t('a', 'b'), at: 5 }, [])).toEqual({
      outcome: 'apply',
      value: 'b',
    });
    expect(decideStatusChange(unconfirmed('x', 4), { ...t('a', 'b'), at: 5 }, [])).toEqual({
      outcome: 'refresh',
    });
    const nothing = { value: null, at: null, confirmed: false };
    expect(decideStatusChange(nothing, { ...t('a', 'b'), at: 5 }, [])).toEqual({
      outcome: 'refresh',
    });
  });

  it('resolves a tie by the chain of its millisecond, and asks the service for a cycle', () => {
    const stored = unconfirmed('b', 5);
    expect(decideStatusChange(stored, { ...t('b', 'c'), at: 5 }, [t('a', 'b')])).toEqual({
      outcome: 'apply',
      value: 'c',
    });
    // Arrived in reverse: b -> c first, then a -> b; still ends at c.
    expect(
      decideStatusChange(unconfirmed('c', 5), { ...t('a', 'b'), at: 5 }, [t('b', 'c')]),
    ).toEqual({ outcome: 'apply', value: 'c' });
    expect(decideStatusChange(stored, { ...t('b', 'a'), at: 5 }, [t('a', 'b')])).toEqual({
      outcome: 'refresh',
    });
  });
});

/**
 * The consumer's side of the rule, modelled over random histories in which many changes share
 * a millisecond: every arrival order, with duplicates, must end with the service's value. The
 * model stores exactly what the real store does (value, at, confirmed; transitions per
 * millisecond) and answers a fetch with the final value, as the service does once every event
 * has occurred.
 */
describe('convergence (model of the store, every arrival order)', () => {
  const VALUES = ['pendingdelivery', 'delivered', 'parked', 'failed'];

  interface Occurred extends StatusTransition {
    id: number;
    at: number;
  }

  /** A history: a walk over VALUES, each step 0 or 1 ms after the previous one. */
  const history = fc
    .array(fc.tuple(fc.nat({ max: VALUES.length - 2 }), fc.boolean()), {
      minLength: 1,
      maxLength: 7,
    })
    .map((steps) => {
      let value = 'pendingdelivery';
      let at = 1000;
      return steps.map(([pick, sameMs], id): Occurred => {
        const others = VALUES.filter((v) => v !== value);
        const newValue = others[pick % others.length] as string;
        if (!sameMs) at += 1;
        const change = { id, formerValue: value, newValue, at };
        value = newValue;
        return change;
      });
    });

  function consume(events: readonly Occurred[], final: string, servedAt: number) {
    let stored: StoredStatus = { value: null, at: null, confirmed: false };
    const recorded: Occurred[] = [];
    for (const event of events) {
      const sameMillisecond =
        stored.at === event.at && !stored.confirmed
          ? recorded.filter((r) => r.at === event.at && r.id !== event.id)
          : [];
      const decision = decideStatusChange(stored, event, sameMillisecond);
      if (decision.outcome === 'apply') {
        stored = { value: decision.value, at: event.at, confirmed: false };
      } else if (decision.outcome === 'refresh') {
        stored = { value: final, at: Math.max(event.at, servedAt), confirmed: true };
      }
      if (!recorded.some((r) => r.id === event.id)) recorded.push(event);
    }
    return stored.value;
  }

  it('ends with the service value for random histories, orders and duplicates', () => {
    fc.assert(
      fc.property(
        history,
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.boolean(),
        (occurred, duplicates, servedAfter) => {
          const final = (occurred.at(-1) as Occurred).newValue;
          const last = (occurred.at(-1) as Occurred).at;
          // The Date of the fetch: the second it was answered in, or (no Date header) unknown.
          const servedAt = servedAfter ? last : Number.NEGATIVE_INFINITY;
          const delivered = [
            ...occurred,
            ...duplicates.map((d) => occurred[d % occurred.length] as Occurred),
          ];
          const orders = delivered.length <= 6 ? permutations(delivered) : [delivered];
          for (const order of orders) expect(consume(order, final, servedAt)).toBe(final);
        },
      ),
      { numRuns: 300 },
    );
  });
});
