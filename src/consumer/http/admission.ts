/**
 * How much webhook work the process takes on at once. Memory is spent on a request only after
 * its signature header passed; this bounds what even such requests can take: connections
 * (WEBHOOK_MAX_CONNECTIONS) and body bytes held (WEBHOOK_MAX_INFLIGHT_BYTES). Beyond either,
 * a request is answered 503 with Retry-After and the rest of its body is not read; the
 * service retries.
 *
 * What a slow or idle client holds is what it costs, so it cannot crowd the service out:
 *
 * - connections: when a new connection makes more than WEBHOOK_MAX_CONNECTIONS open, idle ones
 *   are closed to make room, longest idle first: keep-alive connections between requests, and
 *   connections that have not completed a request head within IDLE_GRACE_MS of opening (they
 *   never sent a byte, or send their head a byte at a time). Only connections with a request
 *   in progress, or opened less than IDLE_GRACE_MS ago, make a request one too many (503);
 *   from twice the limit, new connections are closed at once;
 * - bytes: a body holds the bytes it has actually sent, not the length it announced. A body
 *   dribbled a byte at a time holds a few bytes; one whose next bytes would pass the budget is
 *   cut off there (503), and one announcing more than is free is refused unread.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface AdmissionOptions {
  /** Open connections above which webhook requests are refused. */
  maxConnections: number;
  /** Body bytes that may be held at once, over all requests. */
  maxInflightBytes: number;
  /** @default Date.now */
  now?: () => number;
}

export interface Admission {
  /**
   * Counts the server's connections, closes idle ones (oldest first) to stay within
   * maxConnections, and closes new ones outright from twice maxConnections.
   */
  watch(server: Server): void;
  /** True when more connections are open than maxConnections, none of them idle. */
  overConnectionLimit(): boolean;
  /**
   * A body's share of the in-flight budget, or undefined when the `declared` length does not
   * fit what is free now (0 for a body of unknown length).
   */
  admit(declared: number): BodyBudget | undefined;
  /** Current use, for the metrics. */
  stats(): AdmissionStats;
}

/** The bytes one request's body holds of the in-flight budget. */
export interface BodyBudget {
  /** Counts `bytes` more as held; false (nothing counted) when they do not fit. */
  take(bytes: number): boolean;
  /** Gives back everything taken; safe to call twice. */
  release(): void;
}

export interface AdmissionStats {
  connections: number;
  inflightBytes: number;
}

/**
 * How long a new connection has to complete its first request head before it counts as idle:
 * the service sends its head at once, so one slower than this is idle or slow on purpose.
 */
export const IDLE_GRACE_MS = 1_000;

interface Connection {
  /** A request is in progress on it. */
  busy: boolean;
  /** When it became idle: it opened, or its last request ended (then it is a keep-alive). */
  idleSince: number;
  /** It has completed a request. */
  served: boolean;
}

export function createAdmission(options: AdmissionOptions): Admission {
  /** Open connections, in the order they opened or last became idle: longest idle first. */
  const connections = new Map<Socket, Connection>();
  let inflight = 0;
  const now = options.now ?? Date.now;

  /** Closes idle connections, longest idle first, until at most maxConnections are open. */
  const shed = () => {
    const graceEnded = now() - IDLE_GRACE_MS;
    for (const [socket, connection] of connections) {
      if (connections.size <= options.maxConnections) return;
      if (connection.busy) continue;
      if (!connection.served && connection.idleSince > graceEnded) continue;
      connections.delete(socket);
      socket.destroy();
    }
  };

  return {
    watch(server) {
      server.on('connection', (socket: Socket) => {
        connections.set(socket, { busy: false, served: false, idleSince: now() });
        socket.once('close', () => connections.delete(socket));
        if (connections.size > options.maxConnections) shed();
        // Beyond twice the limit even a 503 costs more than the connection is worth.
        if (connections.size > options.maxConnections * 2) {
          connections.delete(socket);
          socket.destroy();
        }
      });
      server.on('request', (req, res) => {
        const socket = req.socket;
        const connection = connections.get(socket);
        if (connection === undefined) return;
        connection.busy = true;
        res.once('close', () => {
          if (!connections.has(socket)) return;
          // Idle again: to the back of the queue, the last to be closed.
          connections.delete(socket);
          connections.set(socket, { busy: false, served: true, idleSince: now() });
        });
      });
    },
    overConnectionLimit: () => connections.size > options.maxConnections,
    admit(declared) {
      if (inflight + declared > options.maxInflightBytes) return undefined;
      let held = 0;
      return {
        take(bytes) {
          if (inflight + bytes > options.maxInflightBytes) return false;
          inflight += bytes;
          held += bytes;
          return true;
        },
        release() {
          inflight -= held;
          held = 0;
        },
      };
    },
    stats: () => ({ connections: connections.size, inflightBytes: inflight }),
  };
}
