/**
 * The 5 s the service gives a webhook's answer, and how the consumer spends it.
 *
 * The service counts an answer that takes longer than WEBHOOK_RESPONSE_TIMEOUT_MS (5 s: SPEC
 * sections 7.1 and 8; src/protocol/headers.ts) as a failed attempt and retries it: a slow
 * 204 costs a duplicate, and a consumer that is always slow never gets an event through. The
 * webhook route (http/webhook/route.ts) does no work in that time but checks, one read and one
 * commit. What can take long is the commit: another process holding SQLite's write lock (a
 * long reconciliation, a backup, an operator's sqlite3 shell) or a PostgreSQL server that
 * froze. So the commit gets a deadline of its own, two fifths of the budget: past it the
 * webhook is answered 503 at once and the service retries (a commit that still lands later
 * makes that retry a duplicate, answered 204). The rest of the budget is the network both
 * ways, the gateway in front, and the service's own measure of the time.
 *
 * docs/how-it-works.md#the-5-s-budget says the same for operators.
 */
import { WEBHOOK_RESPONSE_TIMEOUT_MS } from '../../protocol/index.ts';

/** The service's limit on a webhook's answer. */
export const ANSWER_BUDGET_MS = WEBHOOK_RESPONSE_TIMEOUT_MS;

/**
 * How long a webhook's insert, and the readiness probe's write, may wait for its commit before
 * it fails (2 s).
 */
export const STORE_COMMIT_DEADLINE_MS = (ANSWER_BUDGET_MS * 2) / 5;
