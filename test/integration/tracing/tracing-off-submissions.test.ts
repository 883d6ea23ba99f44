/**
 * Tracing off (issue 40), the default, for what goes out: no SDK registered, so the OpenTelemetry API is a no-op.
 * A submission whose reply is lost still goes out once, settles by a lookup and reaches the
 * status sink; its row and its notice keep no trace context (trace_parent stays null).
 */
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { eventually, SANDBOX_SUBMIT_TOKEN, startSandboxForTest } from '../../support/sandbox.ts';
import {
  exampleInvoice,
  postSubmission,
  recordingSink,
  submitFault,
} from '../../support/submissions.ts';

describe('tracing off', () => {
  it('submits, settles and tells the sink as before, and stores no trace context', async () => {
    // Nothing registered: the API hands out spans that record nothing.
    expect(trace.getActiveSpan()).toBeUndefined();
    expect(trace.getTracer('any').startSpan('probe').isRecording()).toBe(false);
    const { sink, taken } = recordingSink();
    const s = await startSandboxForTest({ webhooks: false, sink });
    await submitFault(s, 'lose-reply', 1);
    const invoice = await exampleInvoice(s.provider.url, 'OFF-1');
    expect((await postSubmission(s.consumer.url, invoice, SANDBOX_SUBMIT_TOKEN)).status).toBe(202);

    const { submissions, sinkOutbox } = s.consumer.store;
    const settled = await eventually(async () => {
      const row = await submissions.get('OFF-1');
      return row?.state === 'submitted' ? row : undefined;
    }, 'the submission to settle');
    expect(settled).toMatchObject({ resolvedBy: 'lookup', attempts: 1, traceParent: null });
    await eventually(
      async () => taken.some((notice) => notice.id === 'submission:OFF-1'),
      'the sink to hear the submission',
    );
    const rows = await sinkOutbox.list({ limit: 10 });
    expect(rows.map((row) => [row.notice.id, row.traceParent])).toEqual([
      ['submission:OFF-1', null],
    ]);
  });
});
