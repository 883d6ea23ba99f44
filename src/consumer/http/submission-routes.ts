/**
 * The submission outbox's routes (docs/submissions.md), behind the admin tokens on the
 * operations port (admin-tokens.ts): how the ERP sends an invoice through the consumer so that
 * it goes out once. The ERP's token is ADMIN_SUBMIT_TOKEN, which these routes alone accept.
 *
 *   POST /admin/submissions              a submit-invoice body; stored first, keyed by its
 *                                        invoice.invoiceNo, then submitted by the outbox.
 *                                        202 stored now; 200 that invoice number was stored
 *                                        already with the same body (sending it again is safe);
 *                                        409 it was stored with another body; 400, 413, 415.
 *                                        ADMIN_TOKEN, ADMIN_SUBMIT_TOKEN
 *   GET  /admin/submissions              the outbox: counts of open submissions, newest first
 *                                        ADMIN_TOKEN, ADMIN_SUBMIT_TOKEN, ADMIN_READ_TOKEN
 *   GET  /admin/submissions/:invoiceNo   one invoice: state, message id, the message's statuses
 *                                        ADMIN_TOKEN, ADMIN_SUBMIT_TOKEN, ADMIN_READ_TOKEN
 */
import { createHash } from 'node:crypto';
import { SpanKind, trace } from '@opentelemetry/api';
import type { Request, Response, Router } from 'express';
import { hasControlCharacter } from '../../protocol/index.ts';
import type { MessageRecord } from '../store/messages.ts';
import type { Store } from '../store/store.ts';
import {
  isSettled,
  SUBMISSION_STATES,
  type Submission,
  type SubmissionState,
} from '../store/submissions.ts';
import { ATTR, inSpan } from '../tracing/tracer.ts';
import { iso, queryLimit } from './admin-fields.ts';
import type { AdminAuth } from './admin-tokens.ts';
import { createJsonObjectReader } from './json-body.ts';
import { sendProblem } from './problem.ts';

export interface SubmissionRouteDeps {
  store: Store;
  now: () => number;
  accepts: AdminAuth['accepts'];
  /** Wakes the submission worker: a submission was just stored. */
  onSubmissionStored?: () => void;
}

/**
 * How long POST waits for the outbox to settle a new submission before it answers, so the
 * usual answer already holds the message id.
 */
const SETTLE_WAIT_MS = 2000;

/** A submit-invoice body, bounded: a large invoice's lines fit many times over. */
export const SUBMISSION_MAX_BYTES = 1024 * 1024;
/** The longest invoice number taken: it is a key, a path segment and a log field. */
export const INVOICE_NO_MAX_CHARS = 200;

// Bounded in size and shape before it is parsed (json-body.ts).
const parseBody = createJsonObjectReader({
  maxBytes: SUBMISSION_MAX_BYTES,
  invalidTitle: 'Invalid submission',
  tooLargeDetail: `A submission is at most ${SUBMISSION_MAX_BYTES} bytes.`,
});

export function addSubmissionRoutes(router: Router, deps: SubmissionRouteDeps): void {
  router.param('invoiceNo', (_req, res, next, value: string) => {
    if (validInvoiceNo(value)) return next();
    sendProblem(res, {
      status: 400,
      title: 'Invalid path',
      detail: `invoiceNo must be 1 to ${INVOICE_NO_MAX_CHARS} characters without control characters`,
    });
  });
  const { accepts } = deps;
  router
    .route('/admin/submissions')
    .post(accepts('submit'), (req, res) => storeSubmission(deps, req, res))
    .get(accepts('submit', 'read'), (req, res) => listSubmissions(deps.store, req, res));
  router
    .route('/admin/submissions/:invoiceNo')
    .get(accepts('submit', 'read'), (req, res) => showSubmission(deps.store, req, res));
}

/** POST: stores the invoice once by its number, then waits a little for the outbox. */
async function storeSubmission(
  deps: SubmissionRouteDeps,
  req: Request,
  res: Response,
): Promise<void> {
  const { store, now } = deps;
  if (!req.is('application/json')) {
    return sendProblem(res, {
      status: 415,
      title: 'Unsupported Media Type',
      detail: 'Send the submit-invoice body as application/json.',
    });
  }
  const parsed = await parseBody(req);
  if ('problem' in parsed) return sendProblem(res, parsed.problem);
  const body = JSON.stringify(parsed.body);
  const invoiceNo = (parsed.body as { invoice?: { invoiceNo?: unknown } }).invoice?.invoiceNo;
  if (typeof invoiceNo !== 'string' || !validInvoiceNo(invoiceNo)) {
    return sendProblem(res, {
      status: 400,
      title: 'Invalid submission',
      detail: `invoice.invoiceNo must be a string of 1 to ${INVOICE_NO_MAX_CHARS} characters without control characters: it is the key that makes the invoice go out once`,
    });
  }
  const bodyHash = createHash('sha256').update(body).digest('hex');
  const { added, submission } = await storeTraced({ invoiceNo, body, bodyHash }, store, now());
  if (submission.bodyHash !== bodyHash) {
    return sendProblem(res, {
      status: 409,
      title: 'Invoice number taken',
      detail: `Invoice ${invoiceNo} was sent through the outbox already, with another body; an invoice goes out once per number.`,
    });
  }
  if (added) deps.onSubmissionStored?.();
  const settled = await settle(store, invoiceNo, now() + SETTLE_WAIT_MS, now);
  res
    .status(added ? 202 : 200)
    .location(`/admin/submissions/${encodeURIComponent(invoiceNo)}`)
    .json(await submissionView(store, settled ?? submission));
}

/**
 * Stores a submission in a `submission store` span: where the invoice's trace begins, since
 * the store keeps the active context with it and the submission loop's spans take it up
 * (docs/operating.md#tracing). Under the HTTP instrumentation's server span when the SDK
 * registered one (INTERNAL, a step of that request); without one, this span stands for the
 * request (SERVER), so a submission has a trace to start from all the same.
 */
function storeTraced(
  submission: { invoiceNo: string; body: string; bodyHash: string },
  store: Store,
  at: number,
) {
  const underRequest = trace.getActiveSpan()?.isRecording() === true;
  return inSpan(
    'submission store',
    {
      kind: underRequest ? SpanKind.INTERNAL : SpanKind.SERVER,
      attributes: { [ATTR.invoiceNo]: submission.invoiceNo },
    },
    async (span) => {
      const stored = await store.submissions.add(submission, at);
      const outcome = stored.added
        ? 'stored'
        : stored.submission.bodyHash === submission.bodyHash
          ? 'repeat'
          : 'conflict';
      span.setAttribute(ATTR.outcome, outcome);
      return stored;
    },
  );
}

/** GET: the outbox's open counts and its submissions, newest first. */
async function listSubmissions(store: Store, req: Request, res: Response): Promise<void> {
  const { state, limit } = req.query;
  if (state !== undefined && !SUBMISSION_STATES.includes(state as SubmissionState)) {
    return sendProblem(res, {
      status: 400,
      title: 'Invalid query',
      detail: `state must be one of ${SUBMISSION_STATES.join(', ')}`,
    });
  }
  const n = queryLimit(limit, res);
  if (n === undefined) return;
  const [stats, rows] = await Promise.all([
    store.submissions.stats(),
    store.submissions.list({
      limit: n,
      ...(state === undefined ? {} : { state: state as SubmissionState }),
    }),
  ]);
  res.json({
    queued: stats.queued,
    sending: stats.sending,
    unknown: stats.unknown,
    oldestOpenAt: iso(stats.oldestOpenAt),
    items: rows.map(outboxView),
  });
}

/** GET one: the invoice's submission with its message's statuses. */
async function showSubmission(store: Store, req: Request, res: Response): Promise<void> {
  const submission = await store.submissions.get(req.params.invoiceNo as string);
  if (submission === undefined) {
    return sendProblem(res, {
      status: 404,
      title: 'Not Found',
      detail: 'No invoice with this number was sent through the outbox.',
    });
  }
  res.json(await submissionView(store, submission));
}

function validInvoiceNo(value: string): boolean {
  return (
    value.length >= 1 &&
    value.length <= INVOICE_NO_MAX_CHARS &&
    value.trim() === value &&
    !hasControlCharacter(value) &&
    value.isWellFormed()
  );
}

/** The submission once it left the open states, or undefined when `until` came first. */
async function settle(
  store: Store,
  invoiceNo: string,
  until: number,
  now: () => number,
): Promise<Submission | undefined> {
  for (;;) {
    const submission = await store.submissions.get(invoiceNo);
    if (submission === undefined) return undefined;
    if (isSettled(submission.state) || now() >= until) return submission;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function outboxView(submission: Submission) {
  return {
    invoiceNo: submission.invoiceNo,
    state: submission.state,
    messageId: submission.messageId,
    // How the message id was learned: reply, lookup (after a lost reply) or created (webhook).
    resolvedBy: submission.resolvedBy,
    attempts: submission.attempts,
    lastError: submission.lastError,
    queuedAt: iso(submission.createdAt),
    firstAttemptAt: iso(submission.firstAttemptAt),
    nextAttemptAt: isSettled(submission.state) ? null : iso(submission.nextAttemptAt),
    settledAt: iso(submission.settledAt),
  };
}

/** One submission with its message's statuses, as the consumer holds them. */
async function submissionView(store: Store, submission: Submission) {
  let message: MessageRecord | undefined;
  if (submission.messageId !== null) {
    message = await store.messages.get({ messageId: submission.messageId, transfer: 'outbound' });
  }
  return {
    ...outboxView(submission),
    message:
      message === undefined
        ? null
        : {
            deliveryStatus: message.deliveryStatus,
            taxReportingStatus: message.taxReportingStatus,
            lifecycleStatus: message.lifecycleStatus,
            validationStatus: message.validationStatus,
            lastEventAt: iso(message.lastEventAt),
          },
  };
}
