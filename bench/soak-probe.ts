/**
 * What the soak reads of the consumer process from outside: resident memory and open file
 * descriptors from /proc (every thread, the SQLite writer included), and from its /metrics the
 * V8 heap and Node's own count of active handles (prom-client's default metrics), the open
 * webhook connections and the inbox by state.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { request } from 'undici';

export interface ProcessProbe {
  /** VmRSS, bytes. */
  rssBytes: number;
  /** Entries of /proc/<pid>/fd: files, sockets, pipes, the event loop's own. */
  fds: number;
  /** Of those, sockets (TCP connections and listeners). */
  sockets: number;
  /** nodejs_heap_size_used_bytes. */
  heapUsedBytes: number;
  /** nodejs_active_handles_total: timers, sockets, servers and the like that keep Node alive. */
  activeHandles: number;
  /**
   * webhook_connections_open, less the probe's own: the connections the service (the
   * simulator's dispatcher) keeps open to the webhook listener.
   */
  webhookConnections: number;
  /** inbox_events by state: pending, processing, done, skipped, dead. */
  inbox: Record<string, number>;
}

export async function probeProcess(pid: number, baseUrl: string): Promise<ProcessProbe> {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssBytes = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024;
  let fds = 0;
  let sockets = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    fds += 1;
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets += 1;
    } catch {
      // Closed between the listing and the look: it no longer counts.
      fds -= 1;
    }
  }
  // A connection of its own, closed after the answer, so the scrape is not among the sockets
  // the next probe counts.
  const res = await request(`${baseUrl}/metrics`, { reset: true });
  const text = await res.body.text();
  return {
    rssBytes,
    fds,
    sockets,
    heapUsedBytes: metric(text, 'nodejs_heap_size_used_bytes'),
    activeHandles: metric(text, 'nodejs_active_handles_total'),
    // The webhook listener also serves /metrics: the probe's connection is one of them.
    webhookConnections: metric(text, 'webhook_connections_open') - 1,
    inbox: Object.fromEntries(
      [...text.matchAll(/^inbox_events\{state="(\w+)"\} (\S+)$/gm)].map((m) => [
        m[1] as string,
        Number(m[2]),
      ]),
    ),
  };
}

function metric(text: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (match?.[1] === undefined) throw new Error(`no ${name} in the consumer's /metrics`);
  return Number(match[1]);
}
