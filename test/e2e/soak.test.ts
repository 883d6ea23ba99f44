/**
 * `npm run soak` (bench/soak.ts) as a user runs it, shortened to seconds: it runs the
 * consumer and its worker through traffic and API faults, prints its table and the figures
 * at rest, and exits 0. And it fails, naming the event, when an event the consumer had stored
 * and handled disappears from its inbox: the test deletes the row from outside, during the
 * pause at rest after the run, as a bug losing it would (the traffic is paused then, so no
 * duplicate can bring it back). The soak's consumer imports with the importer under test
 * (importer-under-test.ts), handed on through TEST_IMPORTER and its settings.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { importerUnderTestEnv } from '../support/importer-under-test.ts';
import { runScript, startScript, waitForOutput } from '../support/processes.ts';

const SOAK = join(import.meta.dirname, '../../bench/soak.ts');
const REST_LINE = '(rest: traffic paused';

const kept: string[] = [];
afterAll(() => {
  for (const dir of kept) rmSync(dir, { recursive: true, force: true });
});

describe('npm run soak', () => {
  it.concurrent('runs traffic and faults, prints its figures, and passes', async () => {
    const run = await runScript(SOAK, {
      cwd: tmpdir(),
      env: await importerUnderTestEnv(),
      args: [
        ...['--minutes', '0.3', '--warmup', '10', '--rate', '2', '--seed', '11'],
        // The lock is left out: the webhooks it refuses come back a minute later.
        ...['--faults', '500,503,hang,reset', '--fault-every', '2'],
      ],
    });
    expect(run.code, run.output).toBe(0);
    const { output } = run;
    expect(output).toMatch(/time +phase +RSS MiB +heap MiB +fds +sockets/);
    for (const phase of ['warm-up', 'run', 'rest'])
      expect(output).toMatch(new RegExp(` ${phase} `));
    expect(output).toMatch(/at rest after warm-up: RSS \d+\.\d MiB, fds \d+, handles \d+/);
    expect(output).toMatch(/at rest after the run: RSS \d+\.\d MiB \([+-]\d+\.\d%\)/);
    const events = /events: (\d+) published, (\d+) handled, 0 missing, 0 not handled/.exec(output);
    expect(events?.[1]).toBe(events?.[2]);
    expect(Number(events?.[1])).toBeGreaterThan(50);
    const invoices = /invoices: (\d+) sent, (\d+) acknowledged, (\d+) imported once, 0 twice/.exec(
      output,
    );
    expect(invoices?.[2]).toBe(invoices?.[1]);
    expect(invoices?.[3]).toBe(invoices?.[1]);
    expect(output).toMatch(
      /faults injected: 500 x[1-9]\d*, 503 x[1-9]\d*, hang x[1-9]\d*, reset x[1-9]/,
    );
    expect(output).toContain('soak: passed');
  }, 90_000);

  it.concurrent('exits 1 naming an event the consumer lost', async () => {
    const soak = startScript(SOAK, {
      cwd: tmpdir(),
      env: await importerUnderTestEnv(),
      args: ['--minutes', '0.2', '--warmup', '4', '--rate', '1', '--faults', 'none'],
    });
    await waitForOutput(soak, 'work folder: ');
    const dir = /work folder: (\S+)/.exec(soak.output())?.[1] as string;
    kept.push(dir);
    // The second pause at rest: after the run, before the accounting.
    await waitForOutput(soak, REST_LINE);
    for (;;) {
      if (soak.output().split(REST_LINE).length > 2) break;
      expect(soak.child.exitCode).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const db = new Database(join(dir, 'consumer.db'), { timeout: 5_000 });
    const lost = db
      .prepare<[], { event_id: string }>(
        "SELECT event_id FROM events WHERE state = 'done' ORDER BY received_at LIMIT 1",
      )
      .get()?.event_id;
    db.prepare('DELETE FROM events WHERE event_id = ?').run(lost);
    db.close();

    expect(await soak.exited()).toBe(1);
    expect(soak.output()).toContain(`published events never stored: 1 (${lost})`);
    expect(soak.output()).toContain('soak: FAILED');
    expect(soak.output()).toContain(`work folder kept: ${dir}`);
  }, 90_000);
});
