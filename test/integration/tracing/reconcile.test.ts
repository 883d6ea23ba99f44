/**
 * A reconciliation run traced (issue 40), against the simulator: one span per run, its
 * counts as attributes once it ends, and under it one span per message it handles, the
 * import running inside it (so an importer's own calls join the run's trace).
 */
import { trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import type { Importer } from '../../../src/consumer/importer/index.ts';
import { RECONCILE_SPANS } from '../../../src/consumer/reconcile/reconciler.ts';
import { ATTR } from '../../../src/consumer/tracing/tracer.ts';
import { TEST_SECRET } from '../../support/consumer.ts';
import { SANDBOX_ADMIN_TOKEN, startSandboxForTest } from '../../support/sandbox.ts';
import { createTestReconciler } from '../../support/test-reconciler.ts';
import {
  carriedValues,
  parentOf,
  useInMemoryTracing,
} from '../../support/tracing/in-memory-tracing.ts';

const tracing = useInMemoryTracing();

/** In the invoices' documents only: never to be seen in a span. */
const BODY_MARKER = 'buyer-reference-body-marker-91c2';

/** Whether `spanId` is `ancestorId` or under it, among the finished spans. */
function isUnder(spans: readonly ReadableSpan[], spanId: string, ancestorId: string): boolean {
  const parents = new Map(spans.map((span) => [span.spanContext().spanId, parentOf(span)]));
  for (let id: string | undefined = spanId; id !== undefined; id = parents.get(id)) {
    if (id === ancestorId) return true;
  }
  return false;
}

describe('a reconciliation run traced', () => {
  it('is one span with its counts, with a span per message it handled and each import inside it', async () => {
    const s = await startSandboxForTest({ webhooks: false });
    const ids = [
      await s.sendInboundInvoice({ invoice: { buyerReference: BODY_MARKER } }),
      await s.sendInboundInvoice({ invoice: { buyerReference: BODY_MARKER } }),
    ];
    // The span active while each import runs: where an importer's own request would go.
    const importedIn = new Map<string, string | undefined>();
    const documents: string[] = [];
    const importer: Importer = {
      async import(input) {
        documents.push(Buffer.from(await input.coreDocument.bytes()).toString('utf8'));
        importedIn.set(input.messageId, trace.getActiveSpan()?.spanContext().spanId);
        return { status: 'imported', location: `erp:${input.messageId}` };
      },
    };

    const summary = await createTestReconciler(s.consumer, { importer })();
    expect(summary).toMatchObject({ found: 2, imported: 2, acknowledged: 2, failed: 0 });
    // The marker is in what the importer had: the scan below is of something to hide.
    for (const document of documents) expect(document).toContain(BODY_MARKER);

    const spans = tracing.spans();
    const runs = spans.filter((span) => span.name === RECONCILE_SPANS.run);
    expect(runs).toHaveLength(1);
    const run = runs[0] as ReadableSpan;
    expect(run.attributes).toMatchObject({
      'invoicing.reconcile.found': 2,
      'invoicing.reconcile.imported': 2,
      'invoicing.reconcile.acknowledged': 2,
      'invoicing.reconcile.already_imported': 0,
      'invoicing.reconcile.failed': 0,
    });
    const messages = spans.filter((span) => span.name === RECONCILE_SPANS.message);
    expect(messages.map((span) => span.attributes[ATTR.messageId]).sort()).toEqual(ids.sort());
    for (const message of messages) {
      expect(parentOf(message)).toBe(run.spanContext().spanId);
      expect(message.spanContext().traceId).toBe(run.spanContext().traceId);
      expect(message.attributes).toMatchObject({
        [ATTR.transfer]: 'inbound',
        [ATTR.outcome]: 'imported',
      });
      const importSpan = importedIn.get(message.attributes[ATTR.messageId] as string);
      expect(importSpan).toBeDefined();
      expect(isUnder(spans, importSpan as string, message.spanContext().spanId)).toBe(true);
    }

    for (const value of carriedValues(spans)) {
      for (const secret of [TEST_SECRET, 'sandbox-token', SANDBOX_ADMIN_TOKEN, BODY_MARKER]) {
        expect(value).not.toContain(secret);
      }
    }
  });
});
