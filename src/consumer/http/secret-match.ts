/**
 * Constant-time comparison of a presented secret (a token, a credential header) with the
 * configured one. Both sides are hashed first so the comparison always runs over 32 bytes:
 * comparing the raw values would return early on a length mismatch and tell an attacker the
 * secret's length.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** A matcher for one expected value; the expected digest is computed once. */
export function createSecretMatch(expected: string): (given: string | undefined) => boolean {
  const expectedDigest = digest(expected);
  return (given) => given !== undefined && timingSafeEqual(digest(given), expectedDigest);
}
