#!/usr/bin/env node
/**
 * `node test/support/trace-printer.ts [--port 4318] [--message <messageId>]`: a collector for
 * the sandbox that prints traces as trees (span-tree.ts) instead of storing them. Start it,
 * then `OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 npm run dev`; a second after the
 * last span arrived it prints what it got: every trace, or with --message those holding a span
 * of that invoice (`invoicing.message.id`), which is how docs/operating.md's late invoice
 * was drawn. Ctrl-C stops it. A development tool: no test runs it.
 */
import { parseArgs } from 'node:util';
import type { ReceivedSpan } from './otlp-protobuf.ts';
import { startOtlpReceiver } from './otlp-receiver.ts';
import { renderSpanTrees } from './span-tree.ts';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '4318' }, message: { type: 'string' } },
});
const receiver = await startOtlpReceiver({ port: Number(values.port) });
console.log(`OTEL_EXPORTER_OTLP_ENDPOINT=${receiver.url}`);

// A trace is printed once its spans stopped arriving for a second, and again if more come.
const printed = new Map<string, number>();
let seen = 0;
setInterval(() => {
  const spans = receiver.spans();
  if (spans.length !== seen) {
    seen = spans.length;
    return;
  }
  const counts = new Map<string, number>();
  for (const span of spans) counts.set(span.traceId, (counts.get(span.traceId) ?? 0) + 1);
  const changed = new Set([...counts].filter(([id, n]) => printed.get(id) !== n).map(([id]) => id));
  for (const id of changed) printed.set(id, counts.get(id) ?? 0);
  const fresh = selected(spans).filter((span) => changed.has(span.traceId));
  if (fresh.length > 0) console.log(`\n${renderSpanTrees(fresh)}`);
}, 1000);

function selected(spans: readonly ReceivedSpan[]): readonly ReceivedSpan[] {
  const messageId = values.message;
  if (messageId === undefined) return spans;
  const traces = new Set(
    spans.filter((s) => s.attributes['invoicing.message.id'] === messageId).map((s) => s.traceId),
  );
  return spans.filter((span) => traces.has(span.traceId));
}

process.on('SIGINT', () => {
  void receiver.close().then(() => process.exit(0));
});
