/**
 * The memory attacks of issue 17, as reusable pieces: a gzip flood (small on the wire, huge
 * once inflated) and a flood of large plain bodies, plus the process memory figures read from
 * /proc. Used by the security tests and by `measure-floods.ts`, which runs them against any
 * checkout of the consumer to compare before and after.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';

import { forgedSignature } from '../../support/webhooks.ts';

export const MiB = 1024 * 1024;

export interface ProcessMemory {
  /** Resident set size now, in bytes (VmRSS). */
  rss: number;
  /** Peak resident set size since start or the last resetPeak, in bytes (VmHWM). */
  peak: number;
}

/** VmRSS and VmHWM of a process, from /proc/<pid>/status (Linux only). */
export function readMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    if (match?.[1] === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
    return Number(match[1]) * 1024;
  };
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/**
 * Resets VmHWM to the current RSS (`echo 5 > clear_refs`), so the peak of one phase can be
 * read. Returns false where that is not allowed; the caller then samples VmRSS instead.
 */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Samples VmRSS every few milliseconds while `work` runs and returns the highest value seen
 * together with VmHWM: the peak counter is exact when resetPeak worked, the samples are the
 * fallback when it did not.
 */
export async function measurePeak<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ result: T; peak: number }> {
  const reset = resetPeak(pid);
  let sampled = readMemory(pid).rss;
  const timer = setInterval(() => {
    sampled = Math.max(sampled, readMemory(pid).rss);
  }, 5);
  try {
    const result = await work();
    const { rss, peak } = readMemory(pid);
    return { result, peak: Math.max(sampled, rss, reset ? peak : 0) };
  } finally {
    clearInterval(timer);
  }
}

/** How the requests of a flood ended: status code counts, and connection errors by code. */
export interface FloodOutcome {
  statuses: Record<string, number>;
  errors: Record<string, number>;
}

async function flood(
  count: number,
  send: (agent: Agent, index: number) => Promise<number>,
): Promise<FloodOutcome> {
  // One connection per request, all at once: the attack the issue measured.
  const agent = new Agent({ connections: count, pipelining: 1 });
  const outcome: FloodOutcome = { statuses: {}, errors: {} };
  try {
    await Promise.all(
      Array.from({ length: count }, async (_, index) => {
        try {
          const status = await send(agent, index);
          outcome.statuses[status] = (outcome.statuses[status] ?? 0) + 1;
        } catch (error) {
          const code = (error as { code?: string }).code ?? (error as Error).name;
          outcome.errors[code] = (outcome.errors[code] ?? 0) + 1;
        }
      }),
    );
  } finally {
    await agent.destroy();
  }
  return outcome;
}

export interface GzipFloodOptions {
  /** @default 100 */
  requests?: number;
  /** Size of each body once inflated. @default just under 25 MiB (the old default limit) */
  inflatedBytes?: number;
  /** Extra headers, e.g. a forged signature. @default none */
  headers?: () => Record<string, string>;
}

/** `requests` gzip bodies of ~25 KB on the wire, each inflating to `inflatedBytes`. */
export function gzipFlood(url: string, options: GzipFloodOptions = {}): Promise<FloodOutcome> {
  const inflated = options.inflatedBytes ?? 25 * MiB - 64 * 1024;
  const body = gzipSync(Buffer.alloc(inflated, ' '), { level: 9 });
  return flood(options.requests ?? 100, async (agent) => {
    const res = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        ...options.headers?.(),
      },
      body,
    });
    await res.body.dump();
    return res.statusCode;
  });
}

export interface LargeBodyFloodOptions {
  /** @default 100 */
  requests?: number;
  /** Size of each plain body. @default 24 MiB (under the old default limit) */
  bodyBytes?: number;
  /** Send a Content-Length (true) or stream chunked without one (false). @default false */
  declareLength?: boolean;
  /** Extra headers, e.g. a forged signature. @default none */
  headers?: () => Record<string, string>;
}

/**
 * `requests` plain bodies of `bodyBytes`, streamed in 64 KiB chunks so the attacker's own
 * memory stays flat. Without a Content-Length the server can only count on the wire.
 */
export function largeBodyFlood(
  url: string,
  options: LargeBodyFloodOptions = {},
): Promise<FloodOutcome> {
  const size = options.bodyBytes ?? 24 * MiB;
  const chunk = Buffer.alloc(64 * 1024, ' ');
  return flood(options.requests ?? 100, async (agent) => {
    const chunks = function* () {
      for (let sent = 0; sent < size; sent += chunk.length) {
        yield sent + chunk.length <= size ? chunk : chunk.subarray(0, size - sent);
      }
    };
    const res = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        ...(options.declareLength ? { 'content-length': String(size) } : {}),
        ...options.headers?.(),
      },
      body: Readable.from(chunks()),
    });
    await res.body.dump();
    return res.statusCode;
  });
}

/** One flood against a consumer's webhook URL. */
export type Flood = (url: string) => Promise<FloodOutcome>;

const forged = () => ({ 'svc-webhook-signature': forgedSignature() });

/**
 * The four floods of issue 17, as the tests bound them and measure-floods.ts prints them (in
 * this order), each with the name it is printed under. A forged signature is well-formed and
 * fresh: it passes every check that can run before the body is read.
 */
export const FLOODS = {
  unsignedGzip: { name: 'gzip flood, unsigned', send: (url) => gzipFlood(url) },
  forgedGzip: {
    name: 'gzip flood, forged fresh signature',
    send: (url) => gzipFlood(url, { headers: forged }),
  },
  chunkedBodies: {
    name: 'large-body flood, chunked, forged fresh signature',
    send: (url) => largeBodyFlood(url, { headers: forged }),
  },
  declaredBodies: {
    name: 'large-body flood, Content-Length, forged fresh signature',
    send: (url) => largeBodyFlood(url, { declareLength: true, headers: forged }),
  },
} satisfies Record<string, { name: string; send: Flood }>;
