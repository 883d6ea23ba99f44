/**
 * The bounded read of a webhook's body: counted on the wire against WEBHOOK_MAX_BODY_BYTES
 * (413 as soon as it passes) and against the in-flight budget (503 as soon as its bytes do not
 * fit). Nothing is decompressed: the bytes counted are the bytes held.
 */
import type { IncomingMessage } from 'node:http';
import type { BodyBudget } from '../admission.ts';
import { busy } from './admit.ts';
import { BodyAbortedError, BodyOverBudgetError, BodyTooLargeError, readBody } from './read-body.ts';
import { type Rejection, tooLarge } from './rejection.ts';

/** The client went away mid-body: there is nobody left to answer. */
export const ABORTED = 'aborted';

export async function readWithinLimits(
  req: IncomingMessage,
  maxBodyBytes: number,
  budget: BodyBudget,
): Promise<Buffer | Rejection | typeof ABORTED> {
  try {
    return await readBody(req, maxBodyBytes, budget.take);
  } catch (error) {
    // What was read is dropped: its bytes are free now, not when the connection closes.
    budget.release();
    if (error instanceof BodyTooLargeError) return tooLarge(maxBodyBytes);
    if (error instanceof BodyOverBudgetError) return busy(false);
    if (error instanceof BodyAbortedError) return ABORTED;
    throw error;
  }
}
