/** Listening on the sandbox's port, with an error that says what to change when it is taken. */
import type { Server } from 'node:http';
import type { Express } from 'express';

export function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) =>
      error ? reject(portError(port, host, error as NodeJS.ErrnoException)) : resolve(server),
    );
  });
}

/**
 * The port could not be taken; the message names PROVIDER_PORT, which sets it in every entry
 * point, so that `npm run dev` twice says what to change instead of printing a stack.
 */
export class ProviderListenError extends Error {
  override readonly name = 'ProviderListenError';
}

function portError(port: number, host: string, cause: NodeJS.ErrnoException): Error {
  if (cause.code !== 'EADDRINUSE' && cause.code !== 'EACCES') return cause;
  const why =
    cause.code === 'EADDRINUSE'
      ? `is taken: another process listens on ${host}:${port} (a second npm run dev or npm run provider?)`
      : 'needs privileges this process does not have (ports below 1024)';
  return new ProviderListenError(
    `PROVIDER_PORT ${port} ${why}; stop that process or set PROVIDER_PORT to a free port`,
    { cause },
  );
}
