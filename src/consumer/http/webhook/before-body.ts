/**
 * The checks a webhook passes before any byte of its body is read, cheapest first: a request
 * nobody signed recently, a compressed body or a declared size over the limit costs the
 * consumer one header, never a read.
 */
import { checkSignatureHeader, SignatureError } from '../../../protocol/index.ts';
import { Rejection, tooLarge } from './rejection.ts';

/** The signature header's form and timestamp (the signature itself needs the body). */
export function signatureHeaderCheck(options: {
  header: string | undefined;
  toleranceSeconds: number;
  now: () => number;
}): Rejection | undefined {
  try {
    checkSignatureHeader(options);
    return undefined;
  } catch (error) {
    if (error instanceof SignatureError) return signatureRejection(error);
    throw error;
  }
}

/** A 401 naming why the signature failed, with its stable reason in `type`. */
export function signatureRejection(error: SignatureError): Rejection {
  return new Rejection('unauthorized', {
    status: 401,
    title: 'Invalid signature',
    type: `urn:webhook-consumer:signature:${error.reason}`,
    detail: error.message,
  });
}

/**
 * Any Content-Encoding but identity is refused unread (415): the service does not compress,
 * and inflating before authenticating is how 2 MiB on the wire became 3 GiB.
 */
export function encodingCheck(contentEncoding: string | undefined): Rejection | undefined {
  const encoding = contentEncoding?.trim().toLowerCase();
  if (encoding === undefined || encoding === '' || encoding === 'identity') return undefined;
  return new Rejection(
    'unsupported_encoding',
    {
      status: 415,
      title: 'Unsupported Content-Encoding',
      detail: 'Send the body uncompressed: compressed bodies are not accepted.',
    },
    { headers: { 'Accept-Encoding': 'identity' } },
  );
}

/** A Content-Length over WEBHOOK_MAX_BODY_BYTES is refused unread (413). */
export function declaredSizeCheck(
  declared: number | undefined,
  maxBodyBytes: number,
): Rejection | undefined {
  return declared !== undefined && declared > maxBodyBytes ? tooLarge(maxBodyBytes) : undefined;
}
