/**
 * A process's CPU time by kind of thread, from /proc/<pid>/task: which thread a scenario's
 * rate waits for. The process total (server CPU) cannot tell: in the ingress the main thread
 * and the SQLite writer each pass a webhook on to the other, and the rate is the slower one's.
 * Node names its threads: `MainThread`, `WorkerThread` (a worker_threads thread: in the
 * consumer, the SQLite writer alone), `V8Worker` (V8's platform threads: garbage collection
 * and background compiles; `gc` for short), `libuv-worker` (the pool that runs file calls).
 */
import { readdirSync, readFileSync } from 'node:fs';

export const THREAD_KINDS = ['main', 'writer', 'gc', 'pool', 'other'] as const;
export type ThreadKind = (typeof THREAD_KINDS)[number];
export type ThreadCpu = Record<ThreadKind, number>;

/** How the report names each kind. */
export const THREAD_KIND_LABELS: Readonly<Record<ThreadKind, string>> = {
  main: 'main thread',
  writer: 'worker threads (the SQLite writer)',
  gc: "V8's helper threads",
  pool: "libuv's pool",
  other: 'other',
};

export function threadKind(name: string): ThreadKind {
  switch (name) {
    case 'MainThread':
      return 'main';
    case 'WorkerThread':
      return 'writer';
    case 'V8Worker':
      return 'gc';
    case 'libuv-worker':
      return 'pool';
    default:
      return 'other';
  }
}

/**
 * CPU time (user + system) of the threads of `pid` alive now, summed by kind, in
 * microseconds. A thread that ended is no longer counted, so compare two readings of threads
 * that live as long as the process (as the consumer's do).
 */
export function readThreadCpu(pid: number): ThreadCpu {
  const cpu: ThreadCpu = { main: 0, writer: 0, gc: 0, pool: 0, other: 0 };
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return cpu;
  }
  for (const task of tasks) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim();
      cpu[threadKind(name)] += statCpuMicros(`/proc/${pid}/task/${task}/stat`);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return cpu;
}

/**
 * User plus system CPU time in a /proc `stat` file (a process's or one thread's), in
 * microseconds: fields 14 and 15, in clock ticks (100 a second). The name in field 2 may hold
 * spaces and parentheses, so the fields are counted from the last `) `.
 */
export function statCpuMicros(path: string): number {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Microseconds of each kind per request between two readings. */
export function cpuPerRequest(before: ThreadCpu, after: ThreadCpu, requests: number): ThreadCpu {
  const per = (kind: ThreadKind) =>
    requests > 0 ? Math.max(0, after[kind] - before[kind]) / requests : 0;
  return {
    main: per('main'),
    writer: per('writer'),
    gc: per('gc'),
    pool: per('pool'),
    other: per('other'),
  };
}

/** `131 us: main thread 70, worker threads (the SQLite writer) 44, ...`; kinds at 0 left out. */
export function formatCpuPerRequest(cpu: ThreadCpu): string {
  const total = THREAD_KINDS.reduce((sum, kind) => sum + cpu[kind], 0);
  const parts = THREAD_KINDS.filter((kind) => Math.round(cpu[kind]) > 0).map(
    (kind) => `${THREAD_KIND_LABELS[kind]} ${Math.round(cpu[kind])}`,
  );
  return `${Math.round(total)} us: ${parts.join(', ')}`;
}
