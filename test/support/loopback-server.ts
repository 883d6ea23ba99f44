/**
 * The small HTTP servers of the tests and benchmarks (a proxy in front of the simulator, a
 * fake API, a gateway over replicas): listening on loopback on a port the kernel picks, and
 * closed with the connections they still hold. Free of vitest: bench/ loads it under plain Node.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on 127.0.0.1, any free port; resolves with the base URL, e.g. http://127.0.0.1:40123. */
export async function listenOnLoopback(server: Server, listenPort = 0): Promise<string> {
  server.listen(listenPort, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/**
 * Stops listening and closes every connection, idle or not, then resolves once the server has
 * closed: a keep-alive connection would otherwise hold close() until it timed out. Nothing to do
 * for a server that never started.
 */
export async function closeServer(server: Server | undefined): Promise<void> {
  if (server === undefined) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}
