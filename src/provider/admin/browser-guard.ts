/**
 * The admin API without PROVIDER_ADMIN_TOKEN is open to whoever reaches the port, which on
 * loopback means programs of this machine. A web page the developer happens to open is not one
 * of them, yet a browser will send its requests to 127.0.0.1 on its behalf:
 *
 * - cross-site: a page on another origin posting to http://127.0.0.1:4000/admin/... (a form
 *   or a no-cors fetch needs no preflight). The browser names the page in `Origin`; a request
 *   whose Origin is not this server's own is refused.
 * - DNS rebinding: the page's own host name re-pointed at 127.0.0.1, so the browser thinks it is
 *   same-origin. The `Host` header then still carries that name; only loopback names and IP
 *   literals are accepted.
 *
 * Tools (curl, the tests, the console itself) send no foreign Origin and a loopback or IP Host,
 * so they are unaffected. With a token, the token is the guard and this one is not installed.
 */
import { isIP } from 'node:net';
import type { RequestHandler } from 'express';
import { sendProblem } from '../problem.ts';

export function createBrowserGuard(): RequestHandler {
  return (req, res, next) => {
    const host = req.headers.host ?? '';
    if (!isLocalHost(host)) {
      return sendProblem(
        res,
        403,
        `The admin API without PROVIDER_ADMIN_TOKEN answers only to loopback or IP addresses, not to Host ${JSON.stringify(host)}; set PROVIDER_ADMIN_TOKEN to reach it by name.`,
      );
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, host)) {
      return sendProblem(
        res,
        403,
        'The admin API does not answer requests a web page of another origin makes.',
      );
    }
    next();
  };
}

/** `localhost`, `*.localhost`, or an IP literal, with or without a port. */
function isLocalHost(hostHeader: string): boolean {
  const name = hostHeader.startsWith('[')
    ? hostHeader.slice(1, hostHeader.indexOf(']'))
    : hostHeader.replace(/:\d+$/, '');
  const lower = name.toLowerCase();
  return lower === 'localhost' || lower.endsWith('.localhost') || isIP(name) !== 0;
}

function sameOrigin(origin: string, hostHeader: string): boolean {
  try {
    return new URL(origin).host === hostHeader.toLowerCase();
  } catch {
    // "null" (a sandboxed frame, a file:// page) and anything unparsable is foreign.
    return false;
  }
}
