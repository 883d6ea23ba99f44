/**
 * Submits the submission outbox (docs/submissions.md): a loop beside the worker that claims
 * the due invoices and submits each so that it goes out once, a few at a time
 * (SUBMISSION_SLOTS, four), each invoice in a slot of its own: a submit the messaging API sits
 * on until API_DEADLINE_MS holds its own slot, and the other invoices go out meanwhile.
 *
 * The rule: an attempt is recorded (sending, durably) before its request leaves; after any
 * attempt whose outcome is unknown (a reply lost, a timeout, a crash between the request and
 * its record) the invoice is looked up on the service (find-submitted.ts) before it may be
 * submitted again, and the created webhook settles it meanwhile if it comes first
 * (SubmissionStore.linkCreated). So a second submit happens only after the service said it
 * holds no message of that invoice, and after `lookupDelayMs` has let a slow first request
 * land. An answer that refuses the invoice (a 4xx) settles it as refused; one that surely
 * never reached the service (connection refused, 429) is retried with backoff.
 *
 * Traced (docs/operating.md#tracing) under the context of the admin request that stored the
 * invoice (Submission.traceParent), however many turns and processes it takes: each turn's
 * `submission lookup` and `submission submit` are spans of that trace, and the settling that
 * followed a reply or a lookup is a `submission settle` span under the step that learned the
 * outcome (the status sink's notice is queued in it, so its delivery joins the trace too). A
 * submit that failed says what comes next as an event (`lookup scheduled` after a lost reply,
 * `retry scheduled` when it surely never reached the service).
 */
import type { Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { type ApiClient, ApiError } from '../api/index.ts';
import { eventRetryDelay } from '../loop/backoff.ts';
import { createSlottedLoop } from '../loop/slotted-loop.ts';
import type { WakeableLoop } from '../loop/wakeable-loop.ts';
import {
  SUBMISSION_SLACK_MS,
  type Submission,
  type SubmissionStore,
} from '../store/submissions.ts';
import { contextFromTraceParent } from '../tracing/trace-parent.ts';
import { ATTR, inSpan, recordError } from '../tracing/tracer.ts';
import { describeError } from '../worker/errors.ts';
import { findSubmitted } from './find-submitted.ts';

/**
 * Invoices submitted at once. Not a setting: the rule above is about one invoice (each is
 * leased to the turn that claimed it), so it holds whatever the number; four is enough that
 * a few invoices the API is slow on leave room for the rest, and few enough that an ERP's
 * burst of invoices does not crowd out the worker's own calls to the same API (and its rate
 * limit).
 */
export const SUBMISSION_SLOTS = 4;

export interface SubmissionWorkerOptions {
  submissions: SubmissionStore;
  api: Pick<ApiClient, 'submitInvoice' | 'listMessages'>;
  logger: Logger;
  now: () => number;
  /** How often the loop looks for due submissions when not woken. @default 500 */
  pollMs?: number;
  /** Invoices in hand at once. @default SUBMISSION_SLOTS (4) */
  concurrency?: number;
  /**
   * How long a claimed submission is this process's: longer than an attempt can last, so no
   * other process takes an invoice whose request may still be out. @default 60000
   */
  leaseMs?: number;
  /**
   * After an attempt whose reply was lost, how long before the lookup: time for a request
   * the service is still working on to land, and for the created webhook. @default 10000
   */
  lookupDelayMs?: number;
  /** How much earlier than the first attempt a matching message may be stamped. @default SUBMISSION_SLACK_MS */
  slackMs?: number;
  /** First retry delay and its cap (backoff.ts). @default 2000 and 300000 */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Each attempt's outcome, for metrics. */
  onOutcome?: (outcome: SubmissionOutcome) => void;
}

export type SubmissionOutcome =
  | 'submitted'
  | 'found'
  | 'refused'
  | 'maybe_sent'
  | 'not_sent'
  | 'undecided';

/** notify() wakes it when a submission was just stored. */
export type SubmissionWorker = WakeableLoop;

/**
 * What a failed submit says of the invoice:
 * - refused: a 4xx about the invoice itself;
 * - not_sent: surely not acted on: never reached the service (the client's retries ran out:
 *   connection refused, 429 to the end), or the service refused the caller (401, 403: a wrong
 *   API_TOKEN);
 * - maybe_sent: anything else (no answer, a timeout, a 5xx, a 408): the service may hold it.
 */
function classify(error: unknown): 'refused' | 'not_sent' | 'maybe_sent' {
  if (!(error instanceof ApiError)) return 'maybe_sent';
  const { status } = error;
  if (error.retryable || status === 401 || status === 403) return 'not_sent';
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429) {
    return 'refused';
  }
  return 'maybe_sent';
}

export function createSubmissionWorker(options: SubmissionWorkerOptions): SubmissionWorker {
  const { submissions, logger, now } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  const run: SubmissionRun = {
    submissions,
    api: options.api,
    now,
    lookupDelayMs: options.lookupDelayMs ?? 10_000,
    slackMs: options.slackMs ?? SUBMISSION_SLACK_MS,
    backoff: (attempt) =>
      eventRetryDelay(attempt, {
        ...(options.retryBaseMs === undefined ? {} : { baseMs: options.retryBaseMs }),
        ...(options.retryMaxMs === undefined ? {} : { maxMs: options.retryMaxMs }),
      }),
    outcome: (name, submission, fields = {}) => {
      options.onOutcome?.(name);
      const line = { invoiceNo: submission.invoiceNo, attempts: submission.attempts, ...fields };
      if (name === 'submitted' || name === 'found') logger.info(line, `invoice ${name}`);
      else if (name === 'refused') logger.error(line, 'invoice refused by the service');
      else logger.warn(line, `invoice submission ${name.replace('_', ' ')}; it comes back later`);
    },
  };

  const loop = createSlottedLoop<Submission>({
    slots: options.concurrency ?? SUBMISSION_SLOTS,
    pollMs: options.pollMs ?? 500,
    claim: (room) => submissions.claimDue(now(), room, leaseMs),
    run: (submission) => submitOnce(run, submission),
    // The store is away: a claimed submission comes back when its lease ends, and one in
    // sending is looked up first then.
    onError: (error, during, submission) =>
      logger.warn(
        { err: error, during, ...(submission && { invoiceNo: submission.invoiceNo }) },
        'submission outbox unavailable; retrying',
      ),
  });
  return { start: loop.start, notify: loop.notify, stop: loop.stop };
}

/** What each submission's turn works with. */
interface SubmissionRun {
  submissions: SubmissionStore;
  api: SubmissionWorkerOptions['api'];
  now: () => number;
  lookupDelayMs: number;
  slackMs: number;
  /** The retry delay after `attempt` attempts. */
  backoff: (attempt: number) => number;
  /** Reports an outcome: the metric and its log line. */
  outcome: (name: SubmissionOutcome, submission: Submission, fields?: object) => void;
}

/** Span and event names (docs/operating.md#tracing). */
export const SUBMISSION_SPANS = {
  lookup: 'submission lookup',
  submit: 'submission submit',
  settle: 'submission settle',
} as const;

/** One claimed submission: looked up first after an attempt, then submitted. */
async function submitOnce(run: SubmissionRun, submission: Submission): Promise<void> {
  const { submissions, api, now } = run;
  // The admin request's context, whatever the loop's turn runs in; without one (stored with
  // tracing off), each span starts a trace of its own.
  const parent = contextFromTraceParent(submission.traceParent);
  const attributes = { [ATTR.invoiceNo]: submission.invoiceNo };
  if (
    submission.attempts > 0 &&
    (await inSpan(SUBMISSION_SPANS.lookup, { parent, attributes }, (span) =>
      settledByLookup(run, submission, span),
    ))
  ) {
    return;
  }
  // Recorded before the request leaves: a crash from here on finds it in sending.
  if (!(await submissions.markSending(submission.invoiceNo, now()))) return;
  const attempt = { ...submission, attempts: submission.attempts + 1 };
  const submitAttributes = { ...attributes, [ATTR.attempt]: attempt.attempts };
  await inSpan(SUBMISSION_SPANS.submit, { parent, attributes: submitAttributes }, async (span) => {
    try {
      const reply = await api.submitInvoice(JSON.parse(submission.body), { more: false });
      span.setAttribute(ATTR.messageId, reply.messageId);
      await settle('submitted', () =>
        submissions.markSubmitted(submission.invoiceNo, reply.messageId, 'reply', now()),
      );
      span.setAttribute(ATTR.outcome, 'submitted');
      run.outcome('submitted', attempt, { messageId: reply.messageId, resolvedBy: 'reply' });
    } catch (error) {
      await recordFailedSubmit(run, attempt, error, span);
    }
  });
}

/**
 * A settling store write (`outcome`: submitted by reply or lookup, or refused), in a span of
 * its own: the sink's notice is queued in it.
 */
function settle<T>(outcome: string, write: () => Promise<T>): Promise<T> {
  return inSpan(SUBMISSION_SPANS.settle, { attributes: { [ATTR.outcome]: outcome } }, write);
}

/** True when an earlier attempt turned out to have created the message. */
async function settledByLookup(
  run: SubmissionRun,
  submission: Submission,
  span: Span,
): Promise<boolean> {
  const { submissions, api, now, slackMs } = run;
  const firstAttemptAt = submission.firstAttemptAt ?? submission.createdAt;
  const lookup = await findSubmitted(submission.invoiceNo, firstAttemptAt, {
    api,
    slackMs,
  }).catch((error: unknown) => {
    recordError(span, error);
    return { found: undefined, reason: `lookup failed: ${describeError(error)}` };
  });
  if (lookup.found === true) {
    span.setAttributes({ [ATTR.outcome]: 'found', [ATTR.messageId]: lookup.messageId });
    await settle('submitted', () =>
      submissions.markSubmitted(submission.invoiceNo, lookup.messageId, 'lookup', now()),
    );
    run.outcome('found', submission, { messageId: lookup.messageId, resolvedBy: 'lookup' });
    return true;
  }
  if (lookup.found === undefined) {
    const delay = run.backoff(submission.attempts);
    span.setAttribute(ATTR.outcome, 'undecided');
    span.addEvent('retry scheduled', { [ATTR.delayMs]: delay });
    await submissions.markRetry(submission.invoiceNo, 'unknown', lookup.reason, now() + delay);
    run.outcome('undecided', submission, { err: lookup.reason, retryInMs: delay });
    return true;
  }
  span.setAttribute(ATTR.outcome, 'not_found');
  return false;
}

/**
 * Where a failed submit leaves the invoice, by what the failure says of it (classify); told
 * on the submit's span too (its error, its outcome, and what comes next).
 */
async function recordFailedSubmit(
  run: SubmissionRun,
  attempt: Submission,
  error: unknown,
  span: Span,
): Promise<void> {
  const { submissions, now, lookupDelayMs } = run;
  const reason = describeError(error);
  const verdict = classify(error);
  recordError(span, error);
  span.setAttribute(ATTR.outcome, verdict);
  if (verdict === 'refused') {
    await settle('refused', () => submissions.markRefused(attempt.invoiceNo, reason, now()));
    run.outcome('refused', attempt, { status: (error as ApiError).status, err: reason });
  } else if (verdict === 'not_sent') {
    const delay = run.backoff(attempt.attempts);
    span.addEvent('retry scheduled', { [ATTR.delayMs]: delay });
    await submissions.markRetry(attempt.invoiceNo, 'queued', reason, now() + delay);
    run.outcome('not_sent', attempt, { err: reason, retryInMs: delay });
  } else {
    // The service may hold the message: look before sending again.
    const at = now() + lookupDelayMs;
    span.addEvent('lookup scheduled', { [ATTR.delayMs]: lookupDelayMs });
    await submissions.markRetry(attempt.invoiceNo, 'unknown', reason, at);
    run.outcome('maybe_sent', attempt, { err: reason, lookupInMs: lookupDelayMs });
  }
}
