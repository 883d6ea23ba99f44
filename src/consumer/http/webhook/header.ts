import type { IncomingMessage } from 'node:http';

/**
 * A request header's value as one string. Node joins a repeated header with ", " (set-cookie
 * alone stays a list), which is what express's `req.get` returned before the webhook route
 * answered on node's own request (route.ts).
 */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
