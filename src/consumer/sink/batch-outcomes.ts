/**
 * deliverMany()'s answer as the sink loop reads it: one outcome per notice, in the order the
 * notices were handed. A forked sink may answer with anything (fewer outcomes, a value that
 * is not an array, an entry that is neither fulfilled nor rejected): a notice without a clear
 * `fulfilled` counts as not delivered, so a sink that answers badly delays its notices, and
 * never loses one by having it marked delivered.
 */
import type { NoticeOutcome } from './define-sink.ts';

/** deliverMany() gave no readable outcome for a notice it was handed. */
export class SinkOutcomeMissingError extends Error {
  override readonly name = 'SinkOutcomeMissingError';
  constructor() {
    super(
      "the status sink's deliverMany() gave no outcome for this notice (one { status } per notice, in order)",
    );
  }
}

/** The outcome of the `index`th notice of a batch, from what deliverMany() resolved with. */
export function outcomeAt(outcomes: unknown, index: number): NoticeOutcome {
  const outcome: unknown = Array.isArray(outcomes) ? outcomes[index] : undefined;
  if (typeof outcome === 'object' && outcome !== null && 'status' in outcome) {
    if (outcome.status === 'fulfilled') return { status: 'fulfilled' };
    if (outcome.status === 'rejected') {
      return { status: 'rejected', reason: 'reason' in outcome ? outcome.reason : undefined };
    }
  }
  return { status: 'rejected', reason: new SinkOutcomeMissingError() };
}
