/**
 * The sandbox answers programs of this machine (and of its compose network), never a web page
 * the developer happens to open, yet a browser will send that page's requests to 127.0.0.1 on
 * its behalf:
 *
 * - cross-site: a page on another origin posting to http://127.0.0.1:4000/admin/... (a form
 *   or a no-cors fetch needs no preflight). The browser names the page in `Origin`; a request
 *   whose Origin is not this server's own is refused.
 * - DNS rebinding: the page's own host name re-pointed at 127.0.0.1, so the browser thinks it is
 *   same-origin and sends whatever the page asks, the sandbox's token included when the page
 *   knows it (compose's used to be public). The `Host` header then still carries that name;
 *   only loopback names, IP literals and the names the sandbox was told about are accepted.
 *
 * Both checks guard every route (admin API, messaging API, console), with or without
 * PROVIDER_ADMIN_TOKEN: a token keeps out whoever does not know it, not a page that does
 * (before issue 26 the guard stood only in front of an admin API without a token). Tools (curl,
 * the tests, a consumer) send no Origin and a loopback, IP or configured Host, so they are
 * unaffected.
 */
import { isIP, isIPv6 } from 'node:net';
import type { RequestHandler } from 'express';
import { sendProblem } from './problem.ts';

export interface BrowserGuardOptions {
  /**
   * Host names accepted besides loopback names and IP literals: PROVIDER_ALLOWED_HOSTS (a
   * compose service name such as `provider`), and the address listened on when it is a name.
   * @default []
   */
  allowedHosts?: readonly string[];
}

export function createBrowserGuard(options: BrowserGuardOptions = {}): RequestHandler {
  const allowed = new Set((options.allowedHosts ?? []).map((name) => name.toLowerCase()));
  return (req, res, next) => {
    const host = req.headers.host ?? '';
    if (!isAllowedHost(host, allowed)) {
      return sendProblem(
        res,
        403,
        `The sandbox answers only to loopback names, IP addresses and the names in PROVIDER_HOST or PROVIDER_ALLOWED_HOSTS, not to Host ${JSON.stringify(host.slice(0, 100))}; add the name to PROVIDER_ALLOWED_HOSTS to reach it by that name.`,
      );
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, host)) {
      return sendProblem(
        res,
        403,
        'The sandbox does not answer requests a web page of another origin makes.',
      );
    }
    next();
  };
}

/**
 * Whether a Host header names this server acceptably: `localhost`, `*.localhost`, an IPv4
 * literal, a bracketed IPv6 literal or an allowed name, each with an optional port, and
 * nothing else around them (`[::1]evil.example` is no IPv6 literal).
 */
export function isAllowedHost(hostHeader: string, allowed: ReadonlySet<string>): boolean {
  const name = hostName(hostHeader);
  if (name === undefined) return false;
  if (name.startsWith('[')) return true;
  return (
    name === 'localhost' || name.endsWith('.localhost') || isIP(name) === 4 || allowed.has(name)
  );
}

/** The Host header's name in lower case (IPv6 with its brackets), or undefined when malformed. */
function hostName(hostHeader: string): string | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+))(?::\d{1,5})?$/.exec(hostHeader);
  if (match === null) return undefined;
  const [, v6, name] = match;
  if (v6 !== undefined) return isIPv6(v6) ? `[${v6.toLowerCase()}]` : undefined;
  return name?.toLowerCase();
}

/** Whether an Origin header names the server the Host header names (scheme aside). */
export function sameOrigin(origin: string, hostHeader: string): boolean {
  try {
    return new URL(origin).host === hostHeader.toLowerCase();
  } catch {
    // "null" (a sandboxed frame, a file:// page) and anything unparsable is foreign.
    return false;
  }
}
