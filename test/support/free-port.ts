/**
 * A port nobody listens on right now, for a child process that must be told its port. A module
 * of its own: vitest's global setup (postgres-global.ts) cannot load processes.ts, which
 * resolves tsx with import.meta.resolve.
 */
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
