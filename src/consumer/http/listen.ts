/**
 * The consumer's HTTP listeners: a node:http server around an app, with timeouts that keep a
 * slow or idle client from holding a socket, and, for the webhook listener, the admission
 * limits' connection count.
 */
import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Admission } from './admission.ts';

/** The request line and headers must arrive within this. The service sends them at once. */
export const HEADERS_TIMEOUT_MS = 10_000;
/**
 * The whole request, body included, must arrive within this: a client sending a 1 MiB body
 * slower than about 35 KB/s is cut off. The service must be answered within 5 s anyway.
 */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Idle keep-alive connections stay open this long; above the usual 60 s of load balancers. */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface Listener {
  server: Server;
  port: number;
  /** http://host:port, with a wildcard host shown as 127.0.0.1 */
  url: string;
}

export async function listen(
  app: RequestListener,
  options: { port: number; host: string; admission?: Admission },
): Promise<Listener> {
  const server = createServer(
    {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      // Node checks the two timeouts above on this interval (30 s by default, which would
      // let a slow client keep its socket for up to 30 s longer than the timeout says).
      connectionsCheckingInterval: 1_000,
    },
    app,
  );
  options.admission?.watch(server);
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host =
    options.host === '0.0.0.0' || options.host === '::'
      ? '127.0.0.1'
      : options.host.includes(':')
        ? `[${options.host}]`
        : options.host;
  return { server, port, url: `http://${host}:${port}` };
}
