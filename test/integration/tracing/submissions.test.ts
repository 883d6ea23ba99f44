/**
 * A submission traced (issue 40), against the simulator: the ERP's POST /admin/submissions
 * begins the trace, and however many turns the submission loop takes, its submit, its lookup
 * and its settling are spans of that trace; a reply lost after the service acted shows as the
 * submit's error with the lookup it scheduled, and the lookup that found the message. The
 * status sink's notice of the outcome is delivered in a span of the same trace.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { NOTICE_SPAN } from '../../../src/consumer/sink/notice-spans.ts';
import { SUBMISSION_SPANS } from '../../../src/consumer/submit/submission-worker.ts';
import { ATTR } from '../../../src/consumer/tracing/tracer.ts';
import { TEST_SECRET } from '../../support/consumer.ts';
import {
  eventually,
  SANDBOX_ADMIN_TOKEN,
  SANDBOX_SUBMIT_TOKEN,
  startSandboxForTest,
} from '../../support/sandbox.ts';
import {
  exampleInvoice,
  postSubmission,
  recordingSink,
  type SubmissionView,
  submitFault,
} from '../../support/submissions.ts';
import {
  carriedValues,
  parentOf,
  useInMemoryTracing,
} from '../../support/tracing/in-memory-tracing.ts';

const tracing = useInMemoryTracing();

/** In the invoice's body only: never to be seen in a span. */
const BODY_MARKER = 'buyer-reference-body-marker-7f3a';

const named = (name: string) => tracing.spans().filter((span) => span.name === name);
const idOf = (span: ReadableSpan | undefined) => span?.spanContext().spanId;

describe('a submission traced', () => {
  it('puts the submit that lost its reply, the lookup that found it and the settling in the admin request’s trace', async () => {
    const { sink, taken } = recordingSink();
    const s = await startSandboxForTest({ webhooks: false, sink });
    await submitFault(s, 'lose-reply', 1);
    const body = await exampleInvoice(s.provider.url, 'TRACE-1');
    body.invoice.buyerReference = BODY_MARKER;
    expect((await postSubmission(s.consumer.url, body, SANDBOX_SUBMIT_TOKEN)).status).toBe(202);
    const view = await eventually(async () => {
      const answer = await request(`${s.consumer.url}/admin/submissions/TRACE-1`, {
        headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
      });
      const seen = (await answer.body.json()) as SubmissionView;
      return seen.state === 'submitted' ? seen : undefined;
    }, 'the submission to settle');
    expect(view).toMatchObject({ resolvedBy: 'lookup', attempts: 1 });
    const notice = await eventually(
      async () =>
        tracing
          .spans()
          .find(
            (span) =>
              span.name === NOTICE_SPAN && span.attributes[ATTR.noticeId] === 'submission:TRACE-1',
          ),
      'the notice to be delivered',
    );
    expect(taken.map((notice) => notice.id)).toContain('submission:TRACE-1');

    // The admin request: no HTTP instrumentation here, so its own span stands for it.
    const [stored] = named('submission store');
    expect(stored?.kind).toBe(SpanKind.SERVER);
    expect(stored?.parentSpanContext).toBeUndefined();
    expect(stored?.attributes).toMatchObject({
      [ATTR.invoiceNo]: 'TRACE-1',
      [ATTR.outcome]: 'stored',
    });
    const traceId = stored?.spanContext().traceId;

    // The submit: its reply lost, an error, and a lookup scheduled.
    const submits = named(SUBMISSION_SPANS.submit);
    expect(submits).toHaveLength(1);
    const [submit] = submits;
    expect(parentOf(submit)).toBe(idOf(stored));
    expect(submit?.status.code).toBe(SpanStatusCode.ERROR);
    expect(submit?.attributes).toMatchObject({
      [ATTR.invoiceNo]: 'TRACE-1',
      [ATTR.attempt]: 1,
      [ATTR.outcome]: 'maybe_sent',
    });
    expect(submit?.events.map((event) => event.name)).toEqual(['exception', 'lookup scheduled']);

    // The lookup that found the message, and the settling under it.
    const [lookup] = named(SUBMISSION_SPANS.lookup);
    expect(parentOf(lookup)).toBe(idOf(stored));
    expect(lookup?.attributes).toMatchObject({
      [ATTR.outcome]: 'found',
      [ATTR.messageId]: view.messageId,
    });
    const [settle] = named(SUBMISSION_SPANS.settle);
    expect(parentOf(settle)).toBe(idOf(lookup));
    expect(settle?.attributes[ATTR.outcome]).toBe('submitted');

    // The sink's notice, queued in the settling, delivered under it.
    expect(parentOf(notice)).toBe(idOf(settle));
    expect(notice.attributes).toMatchObject({
      [ATTR.invoiceNo]: 'TRACE-1',
      [ATTR.messageId]: view.messageId,
      [ATTR.outcome]: 'delivered',
    });
    for (const span of [submit, lookup, settle, notice]) {
      expect(span?.spanContext().traceId).toBe(traceId);
    }

    // What the consumer holds as secrets, and the invoice's body: in no span.
    const secrets = [
      TEST_SECRET,
      'sandbox-token',
      SANDBOX_ADMIN_TOKEN,
      SANDBOX_SUBMIT_TOKEN,
      BODY_MARKER,
    ];
    for (const value of carriedValues(tracing.spans())) {
      for (const secret of secrets) expect(value).not.toContain(secret);
    }
  });
});
