import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ReconcileSchedule,
  startReconcileSchedule,
} from '../../../../src/consumer/reconcile/schedule.ts';

// Every second: the shortest pattern cron has, so each test takes a second or two.
const EVERY_SECOND = '* * * * * *';

function recordingLogger() {
  const lines: { msg: string; exitCode?: number }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

async function until(condition: () => boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let schedule: ReconcileSchedule | undefined;
afterEach(async () => {
  await schedule?.stop();
  schedule = undefined;
});

describe('startReconcileSchedule', () => {
  it('runs on the schedule and logs how each run ended', async () => {
    const { logger, lines } = recordingLogger();
    const exitCodes = [1, 0];
    schedule = startReconcileSchedule({
      pattern: EVERY_SECOND,
      logger,
      run: async () => exitCodes.shift() ?? 0,
    });
    expect(schedule.nextRun()).toBeInstanceOf(Date);
    await until(() => lines.filter((l) => l.msg.startsWith('reconciliation run f')).length >= 2);
    const ends = lines.filter((l) => l.msg.startsWith('reconciliation run f'));
    expect(ends[0]).toMatchObject({ exitCode: 1, msg: expect.stringContaining('failed') });
    expect(ends[1]).toMatchObject({ exitCode: 0, msg: 'reconciliation run finished' });
  });

  it('skips a tick while the previous run still goes on, and stop() waits for it', async () => {
    const { logger, lines } = recordingLogger();
    let runs = 0;
    let finish: (code: number) => void = () => {};
    schedule = startReconcileSchedule({
      pattern: EVERY_SECOND,
      logger,
      run: () => {
        runs += 1;
        return new Promise((resolve) => {
          finish = resolve;
        });
      },
    });
    await until(() => lines.some((l) => l.msg.includes('skipped')));
    expect(runs).toBe(1);
    let stopped = false;
    const stopping = schedule.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    finish(0);
    await stopping;
    expect(runs).toBe(1);
  });
});
