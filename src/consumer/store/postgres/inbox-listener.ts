/**
 * LISTEN on the inbox channel (pg-events-insert.ts notifies it when events are stored), on a
 * connection of its own, so a worker starts on events another replica received within
 * milliseconds. The connection is reopened after a failure (a restart, a failover), every
 * 100 ms at first, then less often up to every 5 s; polling covers the gap.
 */
import pg from 'pg';
import { INBOX_CHANNEL } from './pg-events-insert.ts';
import { clientConfig } from './pool.ts';

export interface InboxListener {
  subscribe(listener: () => void): () => void;
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;

export function createInboxListener(connectionString: string): InboxListener {
  const listeners = new Set<() => void>();
  const wake = () => {
    for (const listener of listeners) listener();
  };
  /** The connection listening now, or being opened. */
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let retryMs = FIRST_RETRY_MS;

  const connect = async () => {
    if (closed || client !== undefined) return;
    const next = new pg.Client(clientConfig(connectionString));
    client = next;
    // Called by the 'error' event and by a failed connect or LISTEN, possibly both: the
    // first call ends this connection and schedules the next one.
    let failed = false;
    const fail = () => {
      if (failed) return;
      failed = true;
      if (client === next) client = undefined;
      next.end().catch(() => {});
      if (closed) return;
      retry = setTimeout(() => void connect(), retryMs);
      retry.unref();
      retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
    };
    next.on('error', fail);
    next.on('notification', wake);
    try {
      await next.connect();
      await next.query(`LISTEN ${INBOX_CHANNEL}`);
    } catch {
      fail();
      return;
    }
    if (failed) return;
    retryMs = FIRST_RETRY_MS;
    // Whatever arrived while no one listened is found by the next claim.
    wake();
  };

  return {
    subscribe(listener) {
      listeners.add(listener);
      void connect();
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}
