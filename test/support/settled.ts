/**
 * "Everything settles" for the tests that run replicas on PostgreSQL: every invoice delivered at
 * the simulator and no event in the consumer's inbox left to finish (pending, processing) or
 * given up on (dead).
 */
import type pg from 'pg';

const UNSETTLED = "state IN ('pending', 'processing', 'dead')";

/** How many events are open or dead. */
export async function unsettledEvents(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM events WHERE ${UNSETTLED}`,
  );
  return rows[0]?.n ?? 0;
}

/** A few of them, with their last error, for a failure message. */
export async function stuckEvents(client: pg.Client): Promise<unknown[]> {
  const { rows } = await client.query(
    `SELECT action, state, attempts, last_error FROM events WHERE ${UNSETTLED} LIMIT 5`,
  );
  return rows;
}

/**
 * Polls every 100 ms until `undelivered()` is 0 and no event is unsettled, for at most `ms`;
 * returns either way: the caller asserts, so a failure names what is left.
 */
export async function waitUntilSettled(
  client: pg.Client,
  undelivered: () => number,
  ms = 120_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (undelivered() === 0 && (await unsettledEvents(client)) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
