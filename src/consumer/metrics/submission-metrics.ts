/**
 * The submission outbox's metrics: each attempt or lookup by outcome, and gauges of the
 * invoices not settled yet (by state, the oldest one's age), read from the store on scrape.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { SubmissionStore } from '../store/submissions.ts';
import type { SubmissionOutcome } from '../submit/submission-worker.ts';
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
      new Gauge({
        name: 'submission_outbox_open',
        help: 'Invoices of the submission outbox not settled yet, by state (queued, sending, unknown: its reply was lost)',
        labelNames: ['state'] as const,
        registers: [registry],
        async collect() {
          const open = await stats();
          for (const state of ['queued', 'sending', 'unknown'] as const) {
            this.set({ state }, open[state]);
          }
        },
      });
      new Gauge({
        name: 'submission_outbox_oldest_age_seconds',
        help: 'Seconds since the oldest unsettled invoice of the submission outbox was stored; 0 when there is none',
        registers: [registry],
        async collect() {
          const { oldestOpenAt } = await stats();
          this.set(oldestOpenAt === null ? 0 : Math.max(0, (now() - oldestOpenAt) / 1000));
        },
      });
    },
  };
}
