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

/**
 * The port could not be taken (another process has it, or it is privileged). Its message names
 * the variable to change; entry points print it without a stack and exit 2.
 */
export class ListenError extends Error {
  override readonly name = 'ListenError';
  readonly variable: string;
  readonly port: number;
  constructor(variable: string, port: number, host: string, cause: NodeJS.ErrnoException) {
    const why =
      cause.code === 'EADDRINUSE'
        ? `is taken: another process listens on ${host}:${port} (a second npm run dev, or an earlier consumer still running?)`
        : cause.code === 'EACCES'
          ? 'needs privileges this process does not have (ports below 1024)'
          : `could not be opened on ${host}: ${cause.message}`;
    super(`${variable} ${port} ${why}; stop that process or set ${variable} to a free port`, {
      cause,
    });
    this.variable = variable;
    this.port = port;
  }
}

export async function listen(
  app: RequestListener,
  options: {
    port: number;
    host: string;
    admission?: Admission;
    /** The variable that sets `port`, named when it cannot be taken. @default 'PORT' */
    variable?: string;
  },
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
  try {
    await once(server, 'listening');
  } catch (error) {
    throw new ListenError(
      options.variable ?? 'PORT',
      options.port,
      options.host,
      error as NodeJS.ErrnoException,
    );
  }
  const { port } = server.address() as AddressInfo;
  const host =
    options.host === '0.0.0.0' || options.host === '::'
      ? '127.0.0.1'
      : options.host.includes(':')
        ? `[${options.host}]`
        : options.host;
  return { server, port, url: `http://${host}:${port}` };
}
