/**
 * What tracing costs (issue 40): the scenarios run again with tracing on, as an operator turns
 * it on (OTEL_EXPORTER_OTLP_ENDPOINT, the default sampler: every span), exporting to a loopback
 * receiver that counts and discards (otlp-receiver-server.ts). Each is run beside its
 * tracing-off twin in the same run, (c) ingress right after (c), the drain right after the
 * SQLite drain, and the report gives the ratios on/off. They are kept apart from the targets:
 * the targets are production's figures with tracing off, as it is by default.
 */

import type { DrainResult } from './drain.ts';
import { failedScenario, integer, percent } from './format.ts';
import type { IngressResult } from './ingress.ts';
import { drainShortfall, ingressShortfall } from './work-done.ts';

export interface TracingResult {
  /** (c) with tracing on. */
  ingress?: IngressResult;
  /** The SQLite drain with tracing on. */
  drain?: DrainResult;
  /** What the receiver got during each: OTLP requests and bytes. */
  exported: {
    ingress?: { requests: number; bytes: number };
    drain?: { requests: number; bytes: number };
  };
}

const MIB = 1024 * 1024;

/** The report's lines: each traced figure beside the same figure off, and their ratio. */
export function formatTracing(
  tracing: TracingResult,
  off: { ingress?: IngressResult | undefined; drain?: DrainResult | undefined },
): string[] {
  const lines = [
    'tracing on (OTLP/HTTP to a loopback receiver that discards, default sampler) / off:',
  ];
  const on = tracing.ingress;
  if (on !== undefined && off.ingress !== undefined) {
    const c = off.ingress;
    const sent = tracing.exported.ingress;
    lines.push(
      `  (c) ingress: ${integer(on.requestsPerSecond)} / ${integer(c.requestsPerSecond)} req/s = ` +
        `${(on.requestsPerSecond / c.requestsPerSecond).toFixed(2)}; p99 ${on.latencyP99Ms} / ${c.latencyP99Ms} ms; ` +
        `server CPU ${percent(on.serverCpu)} / ${percent(c.serverCpu)}; ` +
        `peak RSS ${mib(on.serverPeakRssBytes)} / ${mib(c.serverPeakRssBytes)} MiB` +
        (sent === undefined
          ? ''
          : `; exported ${integer(sent.requests)} requests, ${(sent.bytes / MIB).toFixed(1)} MiB`),
    );
    const shortfall = ingressShortfall(on);
    if (shortfall !== undefined) lines.push(`  (c) traced: ${shortfall}`);
  }
  const drain = tracing.drain;
  if (drain !== undefined && off.drain !== undefined) {
    const d = off.drain;
    const sent = tracing.exported.drain;
    lines.push(
      `  drain (sqlite): ${integer(drain.invoicesPerSecond)} / ${integer(d.invoicesPerSecond)} invoices/s = ` +
        `${(drain.invoicesPerSecond / d.invoicesPerSecond).toFixed(2)}; consumer CPU per invoice ` +
        `${drain.consumerCpuMsPerInvoice.toFixed(2)} / ${d.consumerCpuMsPerInvoice.toFixed(2)} ms = ` +
        `${(drain.consumerCpuMsPerInvoice / d.consumerCpuMsPerInvoice).toFixed(2)}x; ` +
        `peak RSS ${mib(drain.consumerPeakRssBytes)} / ${mib(d.consumerPeakRssBytes)} MiB` +
        (sent === undefined
          ? ''
          : `; exported ${(sent.bytes / 1024 / drain.invoices).toFixed(1)} KiB per invoice`),
    );
    const shortfall = drainShortfall(drain);
    if (shortfall !== undefined) lines.push(`  drain traced: ${shortfall}`);
  }
  return lines.length === 1 ? [] : lines;
}

/** The traced scenarios that did not do their work, named as the report's last line names. */
export function tracingFailures(tracing: TracingResult | undefined): string[] {
  return [
    ...(tracing?.ingress === undefined
      ? []
      : failedScenario('c traced', ingressShortfall(tracing.ingress))),
    ...(tracing?.drain === undefined
      ? []
      : failedScenario('drain traced', drainShortfall(tracing.drain))),
  ];
}

function mib(bytes: number): number {
  return Math.round(bytes / MIB);
}
