/**
 * Starts a server under test in its own Node process. The load client (autocannon) and the
 * server then each get one of the machine's two cores; in one process they would share one
 * event loop and the client would steal the server's time, so the figures would measure both.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FromServer, ToServer } from './server-control.ts';

export interface ServerProcess {
  /** The URL to post webhooks to. */
  url: string;
  pid: number;
  /** Peak resident memory of the process so far (VmHWM), in bytes. */
  peakRssBytes(): number;
  /** Runs a command the child offers (see server-control.ts). */
  command<T>(name: string, args?: unknown): Promise<T>;
  /** CPU time the server process has used so far, in microseconds (user + system). */
  cpuMicros(): Promise<number>;
  /** Asks the server to close (the consumer commits and closes its store) and waits for exit. */
  stop(): Promise<void>;
}

// tsx as an --import hook lets the child run the TypeScript sources as `npm run bench` does.
const TSX = import.meta.resolve('tsx');

export async function startServerProcess(
  script:
    | 'bare-server.ts'
    | 'express-server.ts'
    | 'floor-server.ts'
    | 'consumer-server.ts'
    | 'provider-server.ts'
    | 'fake-api.ts'
    | 'otlp-receiver-server.ts',
  env: Record<string, string>,
  options: { nodeArgs?: string[] } = {},
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), '--import', TSX, fileURLToPath(new URL(script, import.meta.url))],
    {
      // Only what the server needs: the runner's own .env or shell must not change the run.
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const exited = once(child, 'exit');
  const listening = await Promise.race([
    nextMessage(child, 'listening'),
    exited.then(([code]) => {
      throw new Error(`${script} exited with code ${code} before listening`);
    }),
  ]);
  let stopping = false;
  // A server that dies mid-run would turn the rest of the run into connection errors: fail
  // the whole run at once, with the reason, instead (an unhandled rejection ends the runner).
  void exited.then(([code]) => {
    if (!stopping) throw new Error(`${script} exited unexpectedly with code ${code}`);
  });

  let commandId = 0;
  return {
    url: listening.url,
    pid: child.pid as number,
    peakRssBytes() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
    async command<T>(name: string, args?: unknown): Promise<T> {
      const id = commandId++;
      const answer = new Promise<T>((resolve) => {
        const onMessage = (message: FromServer) => {
          if (message.type !== 'answer' || message.id !== id) return;
          child.off('message', onMessage);
          resolve(message.value as T);
        };
        child.on('message', onMessage);
      });
      send(child, { type: 'command', id, name, args });
      return answer;
    },
    async cpuMicros() {
      const reply = nextMessage(child, 'cpu');
      send(child, { type: 'cpu' });
      const { userMicros, systemMicros } = await reply;
      return userMicros + systemMicros;
    },
    async stop() {
      stopping = true;
      send(child, { type: 'stop' });
      const [code] = await exited;
      if (code !== 0) throw new Error(`${script} exited with code ${code} on stop`);
    },
  };
}

function send(child: ChildProcess, message: ToServer): void {
  child.send(message);
}

function nextMessage<T extends FromServer['type']>(
  child: ChildProcess,
  type: T,
): Promise<Extract<FromServer, { type: T }>> {
  return new Promise((resolve) => {
    const onMessage = (message: FromServer) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      resolve(message as Extract<FromServer, { type: T }>);
    };
    child.on('message', onMessage);
  });
}
