import { isIPv4 } from 'node:net';

/** localhost, 127.0.0.0/8 or ::1: traffic that never leaves the machine. */
export function isLoopbackUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const host = new URL(value).hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || (isIPv4(host) && host.startsWith('127.'));
}
