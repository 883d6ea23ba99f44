/** The submission outbox's configuration section (docs/submissions.md). */
import type { Reader } from '../settings/reader.ts';

export interface SubmissionSettings {
  /**
   * After a submit of the submission outbox whose reply was lost, how long before the
   * consumer asks the service whether it created the message (docs/submissions.md): time
   * for a request the service is still working on to land. @default 10000
   */
  submissionLookupDelayMs: number;
}

export function readSubmissionSettings(read: Reader): SubmissionSettings {
  return {
    submissionLookupDelayMs: read.integer('SUBMISSION_LOOKUP_DELAY_MS', 10_000, {
      min: 0,
      max: 3_600_000,
    }),
  };
}
