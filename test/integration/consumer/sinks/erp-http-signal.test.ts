/**
 * The erp-http sink ends its call when the consumer's signal aborts (its delivery deadline,
 * SINK_DELIVERY_TIMEOUT_MS, or a shutdown): against a test ERP on a free port that never
 * answers, or answers a byte at a time, the call rejects at once and the ERP sees its
 * connection closed. Before issue 37 the sink took no signal, and such a call held its
 * connection until the sink's own timeouts (10 s for a hang, 30 s for a drip).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErpHttpSink } from '../../../../src/sinks/erp-http.ts';
import { deliveredNotice } from '../../../support/notices.ts';
import { eventually } from '../../../support/sandbox.ts';
import { type ErpBehaviour, type StatusErp, startStatusErp } from '../../../support/status-erp.ts';

let erp: StatusErp;
beforeAll(async () => {
  erp = await startStatusErp({ dripEveryMs: 100 });
});
afterAll(() => erp.close());

const notice = (id: string) => deliveredNotice(`msg-${id}`, id);

/** Well under the sink's own timeouts (10 s, 30 s), well over a loaded machine's pause. */
const PROMPTLY_MS = 2_000;

describe('the erp-http sink with the consumer signal', () => {
  for (const behaviour of ['hang', 'drip'] satisfies ErpBehaviour[]) {
    it(`ends a call the ERP answers with a ${behaviour} when the signal aborts`, async () => {
      erp.behave(() => behaviour);
      const sink = createErpHttpSink({ SINK_ERP_URL: erp.url });
      const cut = new AbortController();
      const delivering = sink.deliver(notice(behaviour), { signal: cut.signal });
      const outcome = delivering.then(
        () => 'resolved',
        (error: Error) => error.message,
      );
      await eventually(async () => erp.unanswered() === 1, 'the call at the ERP');
      cut.abort(new Error('the delivery deadline passed'));
      const ended = await Promise.race([
        outcome,
        new Promise((resolve) => setTimeout(() => resolve('still running'), PROMPTLY_MS)),
      ]);
      expect(ended).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/status-changes failed/);
      await eventually(async () => erp.unanswered() === 0, 'the connection closed', PROMPTLY_MS);
      expect(erp.taken()).toEqual([]);
    });
  }
});
