import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cpuPerRequest,
  formatCpuPerRequest,
  readThreadCpu,
  threadKind,
} from '../../../bench/thread-cpu.ts';

// A real Node process: its main thread and one worker thread each spin until they have used
// the CPU asked (by their own clocks), then it says so and waits to be read.
const SPINNER = `
const { Worker } = require('node:worker_threads');
const spin = (ms) => { while (process.threadCpuUsage().user < ms * 1000) {} };
const worker = new Worker('(' + spin + ')(400); require("node:worker_threads").parentPort.postMessage("spun"); setInterval(() => {}, 1000);', { eval: true });
worker.once('message', () => { spin(200); console.log('ready'); setInterval(() => {}, 1000); });
`;

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

describe("a process's CPU by kind of thread", () => {
  it('tells the main thread from the worker thread, as /proc counts them', async () => {
    const child = spawn(process.execPath, ['-e', SPINNER], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    expect(line.toString().trim()).toBe('ready');

    const cpu = readThreadCpu(child.pid as number);
    // Each spun at least its share by its own clock; /proc's ticks are 10 ms.
    expect(cpu.main).toBeGreaterThanOrEqual(190_000);
    expect(cpu.writer).toBeGreaterThanOrEqual(390_000);
    expect(cpu.main).toBeLessThan(cpu.writer);
  });

  it('is empty for a process that is gone', () => {
    expect(readThreadCpu(2 ** 22 + 1)).toEqual({ main: 0, writer: 0, gc: 0, pool: 0, other: 0 });
  });

  it('names the kinds by the names Node gives its threads', () => {
    expect(threadKind('MainThread')).toBe('main');
    expect(threadKind('WorkerThread')).toBe('writer');
    expect(threadKind('V8Worker')).toBe('gc');
    expect(threadKind('libuv-worker')).toBe('pool');
    expect(threadKind('SignalInspector')).toBe('other');
  });

  it('gives microseconds per request between two readings, and prints them', () => {
    const before = { main: 1_000_000, writer: 500_000, gc: 0, pool: 0, other: 10_000 };
    const after = { main: 1_700_000, writer: 940_000, gc: 170_000, pool: 0, other: 10_000 };
    const per = cpuPerRequest(before, after, 10_000);
    expect(per).toEqual({ main: 70, writer: 44, gc: 17, pool: 0, other: 0 });
    expect(formatCpuPerRequest(per)).toBe(
      "131 us: main thread 70, worker threads (the SQLite writer) 44, V8's helper threads 17",
    );
    expect(cpuPerRequest(before, after, 0).main).toBe(0);
  });
});
