/**
 * How much webhook work the process takes on at once. Memory is spent on a request only after
 * its signature header passed; this bounds what even such requests can take: open connections
 * (WEBHOOK_MAX_CONNECTIONS) and body bytes being read (WEBHOOK_MAX_INFLIGHT_BYTES). A request
 * over either is answered 503 with Retry-After and its body is never read; the service retries.
 */
import type { Server } from 'node:http';

export interface AdmissionOptions {
  /** Open connections above which webhook requests are refused. */
  maxConnections: number;
  /** Body bytes that may be reserved at once, over all requests. */
  maxInflightBytes: number;
}

export interface Admission {
  /**
   * Counts the server's connections, and closes new ones outright from twice maxConnections:
   * beyond that even a 503 costs more than the connection is worth.
   */
  watch(server: Server): void;
  /** True when more connections are open than maxConnections. */
  overConnectionLimit(): boolean;
  /**
   * Reserves `bytes` of the in-flight budget; returns the function that gives them back
   * (safe to call twice), or undefined when the budget cannot cover them now.
   */
  reserve(bytes: number): (() => void) | undefined;
  /** Current use, for the metrics. */
  stats(): AdmissionStats;
}

export interface AdmissionStats {
  connections: number;
  inflightBytes: number;
}

export function createAdmission(options: AdmissionOptions): Admission {
  let connections = 0;
  let inflight = 0;
  return {
    watch(server) {
      server.maxConnections = options.maxConnections * 2;
      server.on('connection', (socket) => {
        connections += 1;
        socket.once('close', () => {
          connections -= 1;
        });
      });
    },
    overConnectionLimit: () => connections > options.maxConnections,
    reserve(bytes) {
      if (inflight + bytes > options.maxInflightBytes) return undefined;
      inflight += bytes;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inflight -= bytes;
      };
    },
    stats: () => ({ connections, inflightBytes: inflight }),
  };
}
