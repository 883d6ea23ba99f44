/**
 * The ERP stand-in's guard against web pages (erp-standin.ts): the simulator's Host and Origin
 * checks (src/provider/browser-guard.ts), shared rather than copied, for a node:http server. A
 * page the developer opens must not drive the stand-in, which forwards invoices to the
 * consumer with the consumer's token: a page of another origin says so in `Origin`, and a page
 * whose own name was re-pointed at 127.0.0.1 (DNS rebinding) still sends that name as `Host`.
 * Programs send no Origin and a loopback, IP or configured Host, so they are unaffected.
 */
import type { IncomingMessage } from 'node:http';
import { isAllowedHost, sameOrigin } from '../../src/provider/browser-guard.ts';

/**
 * Why a request is refused, or undefined when it may go on. `allowedHosts` are the names
 * accepted besides loopback names and IP addresses (ERP_STANDIN_ALLOWED_HOSTS).
 */
export function createBrowserRefusal(
  allowedHosts: readonly string[],
): (req: IncomingMessage) => string | undefined {
  const allowed = new Set(allowedHosts.map((name) => name.toLowerCase()));
  return (req) => {
    const host = req.headers.host ?? '';
    if (!isAllowedHost(host, allowed)) {
      return `The ERP stand-in answers only to loopback names, IP addresses and the names in ERP_STANDIN_ALLOWED_HOSTS, not to Host ${JSON.stringify(host.slice(0, 100))}.`;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, host)) {
      return 'The ERP stand-in does not answer requests a web page of another origin makes.';
    }
    return undefined;
  };
}
