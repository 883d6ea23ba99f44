import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEvent } from '../../src/consumer/store/events.ts';
import { openSqliteStore, type SqliteStore } from '../../src/consumer/store/sqlite/sqlite-store.ts';

/** A real SQLite store in a fresh temporary folder. */
export async function openTempStore(): Promise<SqliteStore & { dispose(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'store-test-'));
  const store = await openSqliteStore(join(dir, 'consumer.db'));
  return Object.assign(store, {
    async dispose() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

let sequence = 0;
export function newEvent(overrides: Partial<NewEvent> = {}): NewEvent {
  sequence += 1;
  return {
    eventId: `evt-${sequence}`,
    action: 'messageStatusChanged',
    transfer: 'inbound',
    messageId: `msg-${sequence}`,
    party: '0192:999999999',
    occurredAt: new Date(1_767_225_600_000 + sequence).toISOString(),
    test: false,
    flag: null,
    body: Buffer.from('{}'),
    receivedAt: 1_767_225_600_000 + sequence,
    ...overrides,
  };
}
