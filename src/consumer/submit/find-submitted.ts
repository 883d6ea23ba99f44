/**
 * Finds out whether the service created the message of an invoice whose submit may have gone
 * out (a lost reply, a crash mid-attempt), before the outbox submits it again.
 *
 * GET /messages filtered by documentNo (a filter of this project's simulator, docs/decisions.md#message-list);
 * each item is checked here too, so a service that ignores the filter only makes the walk
 * longer, never its answer wrong. A message counts when it is outbound, carries the invoice
 * number, and was received no earlier than `slackMs` before the first attempt started (an
 * older one is another invoice that used the number, SUBMISSION_SLACK_MS in
 * store/submissions.ts).
 */
import type { ApiClient } from '../api/index.ts';

export type Lookup =
  | { found: true; messageId: string }
  | { found: false }
  /** The walk ended at its page bound: the answer is not known, and nothing may be sent. */
  | { found: undefined; reason: string };

export interface LookupOptions {
  api: Pick<ApiClient, 'listMessages'>;
  /** How much earlier than the first attempt a message may be stamped received (clock skew). */
  slackMs: number;
  /** Pages of up to 1000 items walked at most. @default 20 */
  maxPages?: number;
}

export async function findSubmitted(
  invoiceNo: string,
  firstAttemptAt: number,
  options: LookupOptions,
): Promise<Lookup> {
  const maxPages = options.maxPages ?? 20;
  const earliest = firstAttemptAt - options.slackMs;
  // Page by page rather than ApiClient.listAllMessages: "not found" needs the last page, and
  // the bound is in pages (a service that ignores the filter answers whole pages of others).
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const { items, nextCursor } = await options.api.listMessages({
      transfer: 'outbound',
      documentNo: invoiceNo,
      limit: 1000,
      ...(cursor === undefined ? {} : { cursor }),
    });
    const match = items.find(
      (item) =>
        item.documentNo === invoiceNo &&
        item.transfer === 'outbound' &&
        Date.parse(item.timeReceived) >= earliest,
    );
    if (match !== undefined) return { found: true, messageId: match.uniqueId };
    if (nextCursor === null || nextCursor === undefined) return { found: false };
    cursor = nextCursor;
  }
  return { found: undefined, reason: `not decided within ${maxPages} pages of GET /messages` };
}
