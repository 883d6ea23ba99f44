/**
 * What the sink kit expects of the notices a target holds (docs/status-sink.md#guarantees):
 * each notice once, for its id is the idempotency key; in each stream (one message side and
 * kind) each change taking over from the one before; and every stream of the played invoices
 * ending where the service's history ends. A broken expectation is a `wrong:` line naming the
 * notices, at most a few of each kind.
 */
import type { Evidence } from '../check-runner/evidence.ts';
import type { StatusNotice } from '../consumer/sink/index.ts';
import { FINAL_VALUES } from './history.ts';

/** How many of the notices that break one expectation the evidence names. */
const SHOWN = 3;

const streamOf = (n: StatusNotice) => `${n.messageId} ${n.transfer} ${n.kind}`;

function listed(items: readonly string[]): string {
  const more = items.length > SHOWN ? ` and ${items.length - SHOWN} more` : '';
  return `${items.slice(0, SHOWN).join('; ')}${more}`;
}

/**
 * Expects each id once and each stream in order; returns the notices by stream
 * (`<messageId> <transfer> <kind>`). `holder` names where they were read, for the evidence.
 */
export function expectOnceInOrder(
  e: Evidence,
  notices: readonly StatusNotice[],
  holder: string,
): Map<string, StatusNotice[]> {
  const times = new Map<string, number>();
  for (const n of notices) times.set(n.id, (times.get(n.id) ?? 0) + 1);
  const repeated = [...times].filter(([, count]) => count > 1);
  e.expect(
    repeated.length === 0,
    `${holder} holds ${listed(repeated.map(([id, count]) => `notice ${id} ${count} times`))}: a notice the consumer hands over again (after a crash) must be ignored by its id`,
  );
  const byStream = new Map<string, StatusNotice[]>();
  for (const n of notices) byStream.set(streamOf(n), [...(byStream.get(streamOf(n)) ?? []), n]);
  const breaks: string[] = [];
  for (const [stream, list] of byStream) {
    for (let i = 1; i < list.length; i++) {
      const before = list[i - 1]?.newValue;
      const after = list[i]?.formerValue;
      if (after !== before) breaks.push(`${stream}: a change from ${after} after one to ${before}`);
    }
  }
  e.expect(
    breaks.length === 0,
    `${holder} holds changes out of order, or with one missing between them (${listed(breaks)}): a sink must take a stream's notices in the order it is handed them`,
  );
  return byStream;
}

/** Expects each played invoice's three streams to end at delivered, electronic and paid. */
export function expectComplete(
  e: Evidence,
  byStream: ReadonlyMap<string, readonly StatusNotice[]>,
  ids: readonly string[],
  holder: string,
): void {
  const short: string[] = [];
  for (const id of ids) {
    for (const [kind, final] of Object.entries(FINAL_VALUES)) {
      const last = byStream.get(`${id} inbound ${kind}`)?.at(-1)?.newValue;
      if (last !== final) short.push(`${id} ${kind} ends at ${last ?? 'nothing'}, not ${final}`);
    }
  }
  e.expect(
    short.length === 0,
    `${holder} lacks changes the consumer applied (${listed(short)}): a notice the sink took was lost`,
  );
}
