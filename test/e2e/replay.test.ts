/** `npm run replay` as an operator runs it against the consumer's database. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/consumer/store/sqlite/sqlite-store.ts';
import { runScript } from '../support/processes.ts';
import { newEvent } from '../support/sqlite.ts';

const SCRIPT = join(import.meta.dirname, '../../scripts/replay.ts');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'replay-e2e-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** DATABASE_URL alone: replay needs nothing else (no secrets, no API). */
function replay(args: string[], env: Record<string, string> = {}) {
  return runScript(SCRIPT, {
    args,
    cwd: dir,
    env: { DATABASE_URL: `sqlite:${join(dir, 'consumer.db')}`, ...env },
  });
}

async function seedDeadEvents(count: number) {
  const store = await openSqliteStore(join(dir, 'consumer.db'));
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const event = newEvent();
    await store.events.insert(event);
    const [claimed] = await store.events.claimDue({
      now: Date.now(),
      limit: 1,
      leaseMs: 1000,
      holder: 'test',
    });
    if (claimed === undefined) throw new Error('nothing claimed');
    await store.events.settle(claimed, { state: 'dead', error: 'HTTP 409' }, Date.now());
    ids.push(event.eventId);
  }
  await store.close();
  return ids;
}

async function states() {
  const store = await openSqliteStore(join(dir, 'consumer.db'));
  const counts = await store.events.countOpen();
  await store.close();
  return counts;
}

describe('npm run replay', () => {
  it('puts the named dead events back to pending', async () => {
    const [first, second] = await seedDeadEvents(2);
    const { code, output } = await replay([first as string]);
    expect(output).toContain(`${first}: replayed`);
    expect(code).toBe(0);
    expect(await states()).toMatchObject({ pending: 1, dead: 1 });
    expect((await replay([second as string, 'no-such-event'])).code).toBe(1);
  });

  it('replays every dead event with --dead', async () => {
    await seedDeadEvents(3);
    const { code, output } = await replay(['--dead']);
    expect(output).toContain('replay: 3 replayed, 0 not');
    expect(code).toBe(0);
    expect(await states()).toMatchObject({ pending: 3, dead: 0 });
  });

  it('exits 2 naming DATABASE_URL when it is wrong or names no database, creating nothing', async () => {
    const bad = await replay(['--dead'], { DATABASE_URL: 'mysql://db' });
    expect(bad.output).toContain('DATABASE_URL must be sqlite:<path> or postgres://');
    expect(bad.code).toBe(2);
    const missing = await replay(['--dead']);
    expect(missing.output).toContain(
      `DATABASE_URL sqlite:${join(dir, 'consumer.db')}: there is no database`,
    );
    expect(missing.code).toBe(2);
    expect(existsSync(join(dir, 'consumer.db'))).toBe(false);
  });

  it('explains its usage without arguments', async () => {
    const { code, output } = await replay([]);
    expect(code).toBe(2);
    expect(output).toContain('usage: npm run replay');
  });
});
