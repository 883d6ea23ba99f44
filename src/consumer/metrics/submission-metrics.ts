/**
 * The submission outbox's metrics: each attempt or lookup by outcome, and gauges of the
 * invoices not settled yet (by state, the oldest one's age), read from the store on scrape.
 */
import { Counter, type Registry } from 'prom-client';
import type { SubmissionStore } from '../store/submissions.ts';
import type { SubmissionOutcome } from '../submit/submission-worker.ts';
import { ageSeconds, gaugeOnScrape } from './scrape-gauge.ts';
import { sharedReading } from './shared-reading.ts';

export interface SubmissionMetrics {
  /** One attempt or lookup of the submission outbox, by outcome. */
  submissionOutcome(outcome: SubmissionOutcome): void;
  /** Gauges of the submission outbox, read on scrape. */
  trackSubmissions(submissions: SubmissionStore): void;
}

/** `now` is the clock the oldest invoice's age is measured with. */
export function createSubmissionMetrics(registry: Registry, now: () => number): SubmissionMetrics {
  const submissionOutcomes = new Counter({
    name: 'submission_attempts_total',
    help: 'Attempts and lookups of the submission outbox, by outcome (submitted, found, refused, maybe_sent, not_sent, undecided)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  return {
    submissionOutcome(outcome) {
      submissionOutcomes.inc({ outcome });
    },
    trackSubmissions(submissions) {
      const stats = sharedReading(() => submissions.stats());
      gaugeOnScrape(
        registry,
        {
          name: 'submission_outbox_open',
          help: 'Invoices of the submission outbox not settled yet, by state (queued, sending, unknown: its reply was lost)',
          labelNames: ['state'],
        },
        async () => {
          const open = await stats();
          return (['queued', 'sending', 'unknown'] as const).map(
            (state) => [{ state }, open[state]] as const,
          );
        },
      );
      gaugeOnScrape(
        registry,
        {
          name: 'submission_outbox_oldest_age_seconds',
          help: 'Seconds since the oldest unsettled invoice of the submission outbox was stored; 0 when there is none',
        },
        async () => ageSeconds(now(), (await stats()).oldestOpenAt),
      );
    },
  };
}
