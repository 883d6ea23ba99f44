/**
 * A trace as text: its spans as a tree, each with its time from the trace's start, its length
 * and what it says about the invoice (the consumer's `invoicing.*` attributes, an HTTP status,
 * its events, its links). For docs/operating.md's late invoice and for reading a test's trace.
 * Free of vitest.
 */
import type { ReceivedSpan } from './otlp-protobuf.ts';

const SHOWN = /^(invoicing\.|http\.response\.status_code$|http\.route$|error\.type$)/;
const KINDS = ['', '', 'server', 'client', 'producer', 'consumer'];

/** Every trace of `spans`, oldest first, each as a tree. */
export function renderSpanTrees(spans: readonly ReceivedSpan[]): string {
  const traces = new Map<string, ReceivedSpan[]>();
  for (const span of spans) traces.set(span.traceId, [...(traces.get(span.traceId) ?? []), span]);
  const start = (trace: ReceivedSpan[]) => Math.min(...trace.map((s) => s.startMs));
  return [...traces.values()]
    .sort((a, b) => start(a) - start(b))
    .map(renderTrace)
    .join('\n\n');
}

function renderTrace(trace: ReceivedSpan[]): string {
  const ids = new Set(trace.map((span) => span.spanId));
  const children = new Map<string, ReceivedSpan[]>();
  for (const span of trace) {
    // A parent outside the trace received (another process's, a sender's) counts as none.
    const parent = ids.has(span.parentSpanId) ? span.parentSpanId : '';
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  for (const list of children.values()) list.sort((a, b) => a.startMs - b.startMs);
  const origin = Math.min(...trace.map((span) => span.startMs));
  const first = trace[0];
  const lines = [`trace ${first?.traceId} (${first?.serviceName ?? 'unknown service'})`];
  const walk = (span: ReceivedSpan, prefix: string, last: boolean, root: boolean) => {
    const branch = root ? '' : last ? '└─ ' : '├─ ';
    lines.push(`${prefix}${branch}${describe(span, origin)}`);
    const inner = root ? prefix : `${prefix}${last ? '   ' : '│  '}`;
    const below = children.get(span.spanId) ?? [];
    for (const [i, child] of below.entries()) walk(child, inner, i === below.length - 1, false);
  };
  for (const root of children.get('') ?? []) walk(root, '', true, true);
  return lines.join('\n');
}

function describe(span: ReceivedSpan, origin: number): string {
  const kind = KINDS[span.kind] ?? '';
  const facts = Object.entries(span.attributes)
    .filter(([key]) => SHOWN.test(key))
    .map(([key, value]) => `${key.replace(/^invoicing\./, '')}=${value}`);
  const events = span.events.length === 0 ? [] : [`events: ${span.events.join(', ')}`];
  const links = span.links.map((link) => `link ${link.traceId.slice(0, 8)}…/${link.spanId}`);
  const details = [...facts, ...events, ...links];
  return (
    `${span.name}${kind === '' ? '' : ` (${kind})`}  +${ms(span.startMs - origin)} ${ms(span.durationMs)}` +
    (details.length === 0 ? '' : `  ${details.join(' ')}`)
  );
}

function ms(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`;
}
