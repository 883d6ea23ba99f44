/**
 * TLS to PostgreSQL is set in DATABASE_URL (`sslmode`, `sslrootcert`: docs/operating.md#
 * postgresql-tls). When it fails at start, Node's error names an OpenSSL check ("unable to
 * verify the first certificate"); this says what to change in DATABASE_URL instead.
 */

/** The consumer could not open a TLS connection to PostgreSQL as DATABASE_URL asks. */
export class DatabaseTlsError extends Error {
  override readonly name = 'DatabaseTlsError';
}

/** Node's codes for a certificate chain it could not verify (X509 verify errors). */
const UNVERIFIED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
]);

const SEE = 'see docs/operating.md#postgresql-tls';

/** `error` explained as a DatabaseTlsError when it is a TLS failure; unchanged otherwise. */
export function explainTlsFailure(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const { code, path } = error as { code?: unknown; path?: unknown };
  const why = `${error.message}${typeof code === 'string' ? ` (${code})` : ''}`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return new DatabaseTlsError(
      `PostgreSQL's TLS certificate does not name the host DATABASE_URL connects to: ${why}. ` +
        `Use a host name the certificate holds; ${SEE}`,
      { cause: error },
    );
  }
  if (typeof code === 'string' && UNVERIFIED.has(code)) {
    return new DatabaseTlsError(
      `PostgreSQL's TLS certificate could not be verified: ${why}. Name the certificate of ` +
        `the CA that signed it in DATABASE_URL (sslmode=verify-full&sslrootcert=/path/ca.pem); ${SEE}`,
      { cause: error },
    );
  }
  if (error.message === 'The server does not support SSL connections') {
    return new DatabaseTlsError(
      `DATABASE_URL asks for TLS (sslmode), but the server does not offer it (ssl = off): ` +
        `turn it on in postgresql.conf, or remove sslmode from DATABASE_URL; ${SEE}`,
      { cause: error },
    );
  }
  // node-postgres reads the files DATABASE_URL names when it opens a connection.
  if ((code === 'ENOENT' || code === 'EACCES') && typeof path === 'string') {
    return new DatabaseTlsError(
      `DATABASE_URL names a TLS file that cannot be read: ${path} (sslrootcert, sslcert or ` +
        `sslkey): ${why}; ${SEE}`,
      { cause: error },
    );
  }
  return error;
}
