/**
 * LISTEN on the inbox channel (pg-events.ts notifies it when events are stored), on a
 * connection of its own, so a worker starts on events another replica received within
 * milliseconds. The connection is reopened after a failure; polling covers the gap.
 */
import pg from 'pg';
import { INBOX_CHANNEL } from './pg-events.ts';

export interface InboxListener {
  subscribe(listener: () => void): () => void;
  close(): Promise<void>;
}

export function createInboxListener(connectionString: string): InboxListener {
  const listeners = new Set<() => void>();
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (delayMs: number) => {
    if (closed || client !== undefined) return;
    const next = new pg.Client({ connectionString });
    const reconnect = () => {
      if (client === next) client = undefined;
      next.end().catch(() => {});
      if (!closed) {
        retry = setTimeout(() => void connect(Math.min(delayMs * 2, 5000)), delayMs);
        retry.unref();
      }
    };
    next.on('error', reconnect);
    next.on('notification', () => {
      for (const listener of listeners) listener();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${INBOX_CHANNEL}`);
      client = next;
      // Whatever arrived while no one listened is found by the next claim.
      for (const listener of listeners) listener();
    } catch {
      reconnect();
    }
  };

  return {
    subscribe(listener) {
      listeners.add(listener);
      void connect(100);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
      client = undefined;
    },
  };
}
