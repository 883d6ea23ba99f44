/**
 * One load run with autocannon in this process: `connections` keep-alive connections, each
 * sending the next request as soon as the previous answer arrives, for `durationSeconds`.
 * Requests come from `next()` at send time (autocannon's setupRequest), so a run can send
 * millions of distinct signed events without building them all first.
 */
import autocannon from 'autocannon';
import type { WebhookRequest } from './webhook-requests.ts';

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  next: () => WebhookRequest;
  /** Called with the eventId of every 2xx answer, to check later that each one was stored. */
  onAcknowledged?: (eventId: string) => void;
}

export interface LoadResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyP999Ms: number;
  responses2xx: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  statusCodes: Record<string, number>;
  /** CPU time of this (client) process over the run, as a share of one core. */
  clientCpu: number;
  durationSeconds: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { pathname, search } = new URL(options.url);
  const onAcknowledged = options.onAcknowledged;
  const request: autocannon.Request = {
    method: 'POST',
    path: `${pathname}${search}`,
    setupRequest(base, context) {
      const next = options.next();
      // With one request in flight per connection, the context names the one being answered.
      context.eventId = next.eventId;
      return { ...base, body: next.body, headers: { ...next.headers } };
    },
    ...(onAcknowledged === undefined
      ? {}
      : {
          onResponse(status: number, _body: string, context: autocannon.Context) {
            if (status >= 200 && status < 300) onAcknowledged(context.eventId as string);
          },
        }),
  };

  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationSeconds,
        pipelining: 1,
        requests: [request],
      },
      (error, result) => (error === null ? resolve(result) : reject(error)),
    );
  });
  const elapsedMicros = (performance.now() - started) * 1000;
  const cpu = process.cpuUsage(cpuBefore);

  return {
    // Completed responses over the measured time, not autocannon's per-second sample mean,
    // which drops the partial last second.
    requestsPerSecond: (result['2xx'] + result.non2xx) / result.duration,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyP999Ms: result.latency.p99_9,
    responses2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]),
    ),
    clientCpu: (cpu.user + cpu.system) / elapsedMicros,
    durationSeconds: result.duration,
  };
}
