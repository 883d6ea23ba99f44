/**
 * The optional credential the service adds to each webhook (SPEC.md section 5.2). It is
 * checked after the signature and never replaces it: alone it stops neither a modified nor
 * a replayed request.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Credential } from '../config.ts';
import { createSecretMatch } from './secret-match.ts';

/** Returns the header name to read and the exact value it must carry. */
function expectation(credential: Credential): { header: string; value: string } {
  switch (credential.type) {
    case 'bearer':
      return { header: 'authorization', value: `Bearer ${credential.token}` };
    case 'basic': {
      const encoded = Buffer.from(`${credential.username}:${credential.password}`).toString(
        'base64',
      );
      return { header: 'authorization', value: `Basic ${encoded}` };
    }
    case 'header':
      return { header: credential.name.toLowerCase(), value: credential.value };
  }
}

/** Builds a checker; the expected value is computed once, compared in constant time. */
export function createCredentialCheck(
  credential: Credential,
): (headers: IncomingHttpHeaders) => boolean {
  const { header, value } = expectation(credential);
  const matches = createSecretMatch(value);
  return (headers) => {
    const received = headers[header];
    return typeof received === 'string' && matches(received);
  };
}
