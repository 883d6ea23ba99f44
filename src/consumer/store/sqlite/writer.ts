/**
 * The main thread's side of the SQLite writer (writer-thread.ts): a typed call per write
 * operation, answered once the writer's transaction holding it has committed. Calls travel to
 * the thread in as few messages as keep it busy (a message costs both threads a few
 * microseconds whatever it holds), each call still answered, or failing, on its own:
 *   - the thread has nothing in hand, or SOON_AFTER calls are waiting: what is asked for now
 *     (this callback and the promise reactions it starts) is sent as soon as they have run
 *     (process.nextTick), so the thread starts on it while this one goes on;
 *   - the thread is busy: what is asked for meanwhile waits for the end of this turn of the
 *     event loop (setImmediate), or for the thread's answer if that comes first, and goes in
 *     one message; the thread takes it as its next transaction anyway.
 * Holding every call until the turn ends would leave the thread idle while this one works
 * through a poll's worth of webhooks, then this one idle while the thread commits them (the
 * ingress lost a third of its rate that way).
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { StoreError } from '../store.ts';
import {
  STANDALONE_OPERATIONS,
  type WriteOperation,
  type WriteOperations,
} from './sqlite-writes.ts';
import {
  deserializeError,
  type WriterCall,
  type WriterReply,
  type WriterRequest,
} from './writer-protocol.ts';

export interface SqliteWriter {
  /** Runs one write operation on the writer thread; resolves after its transaction commits. */
  call<K extends WriteOperation>(
    op: K,
    ...args: Parameters<WriteOperations[K]>
  ): Promise<ReturnType<WriteOperations[K]>>;
  /**
   * `call`, run only once the writes `after` stands for (promises of this writer's calls) have
   * committed, and never if one of them fails: it then fails with that error. Asked for in the
   * same turn as they were, it goes in their transaction (the thread runs it after them, and
   * not if one of them throws); otherwise it is sent once they have committed.
   */
  callAfter<K extends WriteOperation>(
    after: readonly Promise<unknown>[],
    op: K,
    ...args: Parameters<WriteOperations[K]>
  ): Promise<ReturnType<WriteOperations[K]>>;
  /** Lets the calls in flight finish, then closes the write connection and the thread. */
  close(): Promise<void>;
}

/**
 * Calls waiting that are sent without waiting for the end of the turn: a webhook costs this
 * thread about 100 us, so the writer never waits a millisecond for work while a poll's worth
 * of webhooks is read, and a message still carries several.
 */
const SOON_AFTER = 8;

// Beside this file: writer-thread.ts from the sources, writer-thread.js once built.
const THREAD = new URL(
  `./writer-thread${extname(fileURLToPath(import.meta.url))}`,
  import.meta.url,
);

/**
 * Starts the writer on the database file at `path`; it applies the migrations first.
 *
 * One function, longer than most here, on purpose: the calls in flight, the start-up's answer
 * and the thread's end share one state, and the order in which a queued reply and the exit
 * are handled is what makes a failure heard right (see 'exit'); split apart, that order would
 * hide across functions.
 */
export async function startWriter(path: string): Promise<SqliteWriter> {
  const { port1: port, port2 } = new MessageChannel();
  const worker = new Worker(THREAD, {
    workerData: { path, port: port2 },
    transferList: [port2],
    execArgv: inheritableExecArgv(process.execArgv),
    // It only ever holds one batch of calls and their answers, bounded by the ingress's
    // in-flight limit and the worker's concurrency: a small young generation is plenty (every
    // megabyte V8 would let it grow is resident memory of the consumer), and the old generation
    // has room for a batch of large bodies.
    resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 128 },
  });
  const pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (e: Error) => void }
  >();
  let nextId = 0;
  // Calls sent and not answered yet, and what to do once the thread has answered some.
  let inFlight = 0;
  let answered = () => {};
  let stopped: Error | undefined;
  let closed: (() => void) | undefined;

  const stop = (error: Error) => {
    stopped ??= error;
    for (const call of pending.values()) call.reject(stopped);
    pending.clear();
  };
  const started = new Promise<void>((resolve, reject) => {
    const handle = (reply: WriterReply) => {
      switch (reply.type) {
        case 'ready':
          return resolve();
        case 'failed':
          return reject(
            new StoreError(`Could not open ${path}: ${reply.error.message}`, {
              cause: deserializeError(reply.error),
            }),
          );
        case 'results':
          inFlight -= reply.results.length;
          for (const result of reply.results) {
            const call = pending.get(result.id);
            pending.delete(result.id);
            if (result.ok) call?.resolve(result.value);
            else call?.reject(deserializeError(result.error));
          }
          return answered();
        case 'closed':
          return closed?.();
      }
    };
    port.on('message', handle);
    worker.on('error', (error) => {
      const failure = new StoreError(`the SQLite writer failed: ${error.message}`, {
        cause: error,
      });
      reject(failure);
      stop(failure);
    });
    worker.on('exit', (code) => {
      // The port's messages and this event are not ordered: a reply the thread sent just
      // before it ended (why it could not open the file, say) may still be queued. Read it
      // first, so that it, not the bare exit, is what the caller hears.
      for (let queued = receiveMessageOnPort(port); queued; queued = receiveMessageOnPort(port)) {
        handle(queued.message as WriterReply);
      }
      const failure = new StoreError(`the SQLite writer stopped (exit code ${code})`);
      reject(failure);
      stop(failure);
      port.close();
    });
  });
  await started;

  const send = (request: WriterRequest) => port.postMessage(request);
  // The calls of this turn, sent together when it ends, and their ids by their promises (for
  // callAfter).
  let queued: WriterCall[] = [];
  let queuedIds = new Map<Promise<unknown>, number>();
  let flushing: 'soon' | 'at the end of the turn' | undefined;
  const flush = () => {
    flushing = undefined;
    const calls = queued;
    queued = [];
    queuedIds = new Map();
    if (calls.length === 0 || stopped !== undefined) return;
    let sent = calls;
    try {
      send({ type: 'calls', calls });
    } catch {
      sent = withoutUncopyable(calls);
      send({ type: 'calls', calls: sent });
    }
    inFlight += sent.length;
  };
  // See the header: soon when the thread has nothing in hand or calls pile up, else at the
  // end of the turn.
  const scheduleFlush = () => {
    if (queued.length === 0 || flushing === 'soon') return;
    if (inFlight === 0 || queued.length >= SOON_AFTER) {
      flushing = 'soon';
      process.nextTick(flush);
    } else if (flushing === undefined) {
      flushing = 'at the end of the turn';
      setImmediate(flush);
    }
  };
  answered = scheduleFlush;
  /**
   * The calls whose arguments can cross to the thread: one that structured clone refuses fails
   * alone, with the calls that follow it (`after`), and the rest of its turn still go together.
   */
  const withoutUncopyable = (calls: WriterCall[]): WriterCall[] => {
    const refused = new Map<number, Error>();
    return calls.filter((call) => {
      let error = call.after?.map((id) => refused.get(id)).find((e) => e !== undefined);
      if (error === undefined) {
        try {
          structuredClone(call.args);
          return true;
        } catch (cloneError) {
          error = cloneError instanceof Error ? cloneError : new Error(String(cloneError));
        }
      }
      refused.set(call.id, error);
      pending.get(call.id)?.reject(error);
      pending.delete(call.id);
      return false;
    });
  };
  const queue = (call: Omit<WriterCall, 'id'>): Promise<never> => {
    if (stopped !== undefined) return Promise.reject(stopped);
    const id = nextId++;
    const answer = new Promise<never>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      queued.push({ id, ...call });
      scheduleFlush();
    });
    if (!STANDALONE_OPERATIONS.has(call.op as WriteOperation)) queuedIds.set(answer, id);
    return answer;
  };
  return {
    call: (op, ...args) => queue({ op, args }),
    callAfter(after, op, ...args) {
      const ids = after.map((write) => queuedIds.get(write));
      if (ids.every((id) => id !== undefined)) return queue({ op, args, after: ids });
      return Promise.all(after).then(() => queue({ op, args }));
    },
    async close() {
      if (stopped !== undefined) return;
      const done = new Promise<void>((resolve) => {
        closed = resolve;
      });
      flush();
      send({ type: 'close' });
      await done;
      stop(new StoreError('the store is closed'));
      await worker.terminate();
    },
  };
}

/**
 * The parent's Node options a worker can take: module loaders (`--import tsx`, `--require`,
 * `--conditions`), profiling and source maps. Others are left out: main-script options (`-e`,
 * `--input-type`) and per-process V8 flags (`--expose-gc`, `--max-old-space-size`) make a
 * worker fail to start.
 */
export function inheritableExecArgv(execArgv: readonly string[]): string[] {
  const withValue = /^(--import|--require|-r|--loader|--experimental-loader|--conditions|-C)$/;
  const alone =
    /^(--import|--require|--loader|--experimental-loader|--conditions|--cpu-prof[a-z-]*|--heap-prof[a-z-]*|--enable-source-maps|--no-warnings|--experimental-[a-z-]+)(=.*)?$/;
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const option = execArgv[i] as string;
    if (withValue.test(option) && i + 1 < execArgv.length) {
      kept.push(option, execArgv[i + 1] as string);
      i++;
    } else if (alone.test(option)) {
      kept.push(option);
    }
  }
  return kept;
}
