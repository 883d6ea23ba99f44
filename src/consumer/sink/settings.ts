/** The status sink's configuration section (docs/status-sink.md). */
import type { Reader } from '../settings/reader.ts';

/**
 * SINK_CONCURRENCY when it is unset: more streams than a few ERP calls stuck at once (a
 * handful of messages the ERP chokes on) can hold, few enough that a backlog does not flood
 * the ERP with calls. Each slot is one call in flight.
 */
export const DEFAULT_SINK_CONCURRENCY = 16;

/**
 * SINK_DELIVERY_TIMEOUT_MS when it is unset: the bundled erp-http sink's own deadline of one
 * whole call (its 30 s), so that sink is cut where it was before, and a forked sink whose ERP
 * takes seconds to book a status (a SOAP call, a batch endpoint) is not cut short. A notice
 * is a few hundred bytes: an ERP that has not taken one in 30 s will not.
 */
export const DEFAULT_SINK_DELIVERY_TIMEOUT_MS = 30_000;

export interface SinkSettings {
  /**
   * The status sink: a name of src/sinks/ or a path (sink/load-sink.ts). @default undefined
   * (`journal`)
   */
  sinkModule: string | undefined;
  /** Notices handed to the sink at once, each of another stream. @default 16 */
  sinkConcurrency: number;
  /**
   * How long the sink loop waits for one deliver() call; past it the notice counts as not
   * delivered (retried with backoff) and its slot goes to another stream. @default 30000
   */
  sinkDeliveryTimeoutMs: number;
}

export function readSinkSettings(read: Reader): SinkSettings {
  return {
    sinkModule: read.optional('SINK_MODULE', (v) => ({ value: v })),
    sinkConcurrency: read.integer('SINK_CONCURRENCY', DEFAULT_SINK_CONCURRENCY, {
      min: 1,
      max: 256,
    }),
    sinkDeliveryTimeoutMs: read.integer(
      'SINK_DELIVERY_TIMEOUT_MS',
      DEFAULT_SINK_DELIVERY_TIMEOUT_MS,
      { min: 100, max: 600_000 },
    ),
  };
}
