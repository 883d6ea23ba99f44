/** A request header read as express's `req.get` read it, for a handler without express. */
import type { IncomingMessage } from 'node:http';

/**
 * A request header's value as one string, by its name in any case. Node keeps the first of
 * a repeated header it allows once (content-type, authorization...) and joins the others with
 * ", " (set-cookie alone stays a list, whose first is taken), as express's `req.get` returned.
 */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
