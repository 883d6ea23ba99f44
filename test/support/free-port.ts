/**
 * A port nobody listens on right now, for a child process that must be told its port. A module
 * of its own, for vitest's global setup (postgres-global.ts) too.
 *
 * The port is taken below the kernel's ephemeral range (ip_local_port_range), at random: a port
 * the kernel hands out for `listen(0)` or an outgoing connection could be handed out again to
 * another server or client of the same test between this check and the child's listen, and the
 * child would fail with EADDRINUSE (a conformance test did, once, in CI). Below that range only
 * another caller of this function can take it, and each picks at random among some 20,000.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LOWEST = 10_000;

export async function freePort(): Promise<number> {
  const below = ephemeralRangeStart();
  if (below === undefined || below - LOWEST < 1000) return listenOn(0);
  for (;;) {
    const port = LOWEST + Math.floor(Math.random() * (below - LOWEST));
    try {
      return await listenOn(port);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
}

/** The first port of the kernel's ephemeral range, where the kernel says (Linux). */
function ephemeralRangeStart(): number | undefined {
  try {
    const low = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
    );
    return Number.isInteger(low) ? low : undefined;
  } catch {
    return undefined;
  }
}

/** Listens on `port` (0: any), closes, and returns the port it had. */
function listenOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => resolve(bound));
    });
  });
}
