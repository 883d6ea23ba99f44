/**
 * "Everything settles" for the tests that run replicas on PostgreSQL: every invoice delivered at
 * the simulator, the simulator with no webhook left to send, and no event in the consumer's
 * inbox left to finish (pending, processing) or given up on (dead).
 *
 * The simulator's side counts: an invoice is imported on its deliveryNotified event, so it can be
 * delivered while its `created` event, answered 503 in an outage, still waits for a retry. Once
 * sent, that event is a new pending one in an inbox that looked settled a moment before.
 */
import type pg from 'pg';
import type { Dispatcher } from '../../src/provider/webhooks/index.ts';

/** Events open or dead, their state read through `table` (a name or an alias). */
const unsettled = (table = 'events') => `${table}.state IN ('pending', 'processing', 'dead')`;

/** How many events are open or dead. */
async function unsettledEvents(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM events WHERE ${unsettled()}`,
  );
  return rows[0]?.n ?? 0;
}

/**
 * A few of them, for a failure message, with what could hold each back: its message's claim,
 * its times, and the other sessions working or left inside a transaction (a claim skips the
 * rows they lock).
 */
export async function stuckEvents(client: pg.Client): Promise<unknown[]> {
  const { rows } = await client.query(
    `SELECT e.action, e.state, e.attempts, e.last_error, e.event_id, e.message_id,
            e.next_attempt_at, e.received_at, (extract(epoch from now()) * 1000)::bigint AS now,
            (SELECT row_to_json(c) FROM message_claims c WHERE c.message_id = e.message_id)
              AS claim,
            (SELECT count(*) FROM events o WHERE o.message_id = e.message_id)::int
              AS events_of_message
       FROM events e WHERE ${unsettled('e')} LIMIT 5`,
  );
  if (rows.length === 0) return rows;
  const { rows: sessions } = await client.query(
    `SELECT pid, state, xact_start, left(query, 200) AS query FROM pg_stat_activity
      WHERE state LIKE 'idle in transaction%' OR (state = 'active' AND pid <> pg_backend_pid())`,
  );
  return [...rows, { sessions }];
}

/** What is left outside the inbox: counted by the test, 0 once done. */
export interface Outstanding {
  /** Invoices the simulator has not seen acknowledged. */
  undelivered: () => number;
  /** Webhooks the simulator has still to send: in flight, or a retry scheduled. */
  sending: () => number;
}

/** `sending` of Outstanding for a simulator's participant. */
export function webhooksToSend(dispatcher: Dispatcher, party: string): () => number {
  return () => dispatcher.deliveries(party, { state: 'pending' }).length;
}

/**
 * Polls every 100 ms until nothing is `outstanding` and no event is unsettled, for at most `ms`;
 * returns either way: the caller asserts, so a failure names what is left.
 */
export async function waitUntilSettled(
  client: pg.Client,
  outstanding: Outstanding,
  ms = 120_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (
      outstanding.undelivered() === 0 &&
      outstanding.sending() === 0 &&
      (await unsettledEvents(client)) === 0
    ) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
