/**
 * The demo supplier's invoices, as `npm run dev` and `npm run provider` start them: every
 * DEMO_INTERVAL_SECONDS (none when 0), each announced on the terminal.
 */
import type { ProviderConfig } from '../src/provider/config.ts';
import { startDemoTraffic } from '../src/provider/demo-traffic.ts';

/** Starts the traffic against the simulator at `url`; undefined when the interval is 0. */
export function startConfiguredDemo(
  config: Pick<ProviderConfig, 'demoIntervalSeconds' | 'adminToken'>,
  url: string,
): { stop(): void } | undefined {
  if (config.demoIntervalSeconds <= 0) return undefined;
  return startDemoTraffic({
    url,
    adminToken: config.adminToken,
    intervalMs: config.demoIntervalSeconds * 1000,
    log: (line) => console.log(line),
  });
}
