/**
 * Checks the optional credential the service adds to each webhook (docs/signature.md#credential),
 * whose header src/protocol/credential.ts defines for both sides. It is checked after the
 * signature and never replaces it: alone it stops neither a modified nor a replayed request.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { credentialHeader } from '../../../protocol/index.ts';
import { createSecretMatch } from '../secret-match.ts';
import type { Credential } from '../settings.ts';

/** Builds a checker; the expected value is computed once, compared in constant time. */
export function createCredentialCheck(
  credential: Credential,
): (headers: IncomingHttpHeaders) => boolean {
  const { name: header, value } = credentialHeader(credential);
  const matches = createSecretMatch(value);
  return (headers) => {
    const received = headers[header];
    return typeof received === 'string' && matches(received);
  };
}
