/**
 * The small IPC protocol between the runner and a server under test running in its own
 * process: the child says where it listens, reports its CPU time on request (so the report
 * can tell a CPU-bound server from a client-bound run) and stops when told.
 */

export type ToServer =
  | { type: 'cpu' }
  | { type: 'stop' }
  | { type: 'command'; id: number; name: string; args: unknown };
export type FromServer =
  | { type: 'listening'; url: string }
  | { type: 'cpu'; userMicros: number; systemMicros: number }
  | { type: 'stopped' }
  | { type: 'answer'; id: number; value: unknown };

/** Commands a server child offers besides cpu and stop (the provider seeds messages, say). */
export type Commands = Record<string, (args: never) => Promise<unknown>>;

/** Child side: call once the server listens. Runs until the parent sends `stop`. */
export function serveControl(
  url: string,
  close: () => Promise<void>,
  commands: Commands = {},
): void {
  const send = (message: FromServer) => process.send?.(message);
  process.on('message', (message: ToServer) => {
    if (message.type === 'command') {
      const run = commands[message.name];
      if (run === undefined) throw new Error(`unknown command ${message.name}`);
      void run(message.args as never).then((value) =>
        send({ type: 'answer', id: message.id, value }),
      );
    } else if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ type: 'cpu', userMicros: user, systemMicros: system });
    } else if (message.type === 'stop') {
      void close().then(() => {
        send({ type: 'stopped' });
        process.disconnect();
      });
    }
  });
  // An orphaned server (runner killed) must not live on.
  process.on('disconnect', () => process.exit(0));
  send({ type: 'listening', url });
}
