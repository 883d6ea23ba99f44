/**
 * Gauges whose values are read when Prometheus scrapes (from the store, mostly): a definition
 * and a function that reads the values, instead of a Gauge with a `collect` written out for
 * each. Read with sharedReading, the gauges of one scrape share one store read.
 */
import { Gauge, type Registry } from 'prom-client';

/** One value, or one value per label set. */
export type GaugeReading = number | ReadonlyArray<readonly [Record<string, string>, number]>;

export function gaugeOnScrape(
  registry: Registry,
  definition: { name: string; help: string; labelNames?: readonly string[] },
  read: () => Promise<GaugeReading>,
): void {
  new Gauge({
    ...definition,
    registers: [registry],
    async collect() {
      const reading = await read();
      if (typeof reading === 'number') this.set(reading);
      else for (const [labels, value] of reading) this.set(labels, value);
    },
  });
}

/** Seconds from `since` (ms since the epoch) to `now`; 0 when there is nothing (null). */
export function ageSeconds(now: number, since: number | null): number {
  return since === null ? 0 : Math.max(0, (now - since) / 1000);
}
