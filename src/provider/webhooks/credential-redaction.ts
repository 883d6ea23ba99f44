/**
 * Keeps an endpoint's credential (docs/signature.md#credential) out of what the admin API shows: the
 * test-event result lists the headers that were sent, and the delivery log and test-event
 * result carry the start of the endpoint's answer, which an endpoint that echoes its request
 * (or a URL aimed at such a service) would fill with the credential.
 *
 * For an endpoint with a credential the answer's start is withheld whole. Scrubbing the value
 * from it was not enough: an echo re-encodes what it echoes (JSON-escaped, percent-encoded,
 * base64 at any alignment, upper-cased, split over the 200-character cut), and a list of
 * encodings to scrub is never complete (issue 26). What stays shown is the status, the time,
 * the error text (scrubbed of the plain values) and the hint, which is what a test event is
 * for; an endpoint without a credential has nothing to leak and keeps its answer's start.
 */
import type { AttemptOutcome } from './send-webhook.ts';
import type { Credential } from './types.ts';

export const REDACTED = '[redacted]';
/** What `bodyStart` shows for an endpoint with a credential. */
export const BODY_WITHHELD =
  '[withheld: this endpoint has a credential, which its answer could echo]';

/** Values shorter than this are not scrubbed from text: it would garble every answer. */
const MIN_SCRUBBED_LENGTH = 4;

/** The request headers with the credential's header value (and any Authorization) replaced. */
export function redactCredentialHeaders(
  headers: Record<string, string>,
  credential: Credential | undefined,
): Record<string, string> {
  const secretHeader = credential?.type === 'header' ? credential.name.toLowerCase() : undefined;
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => {
      const lower = name.toLowerCase();
      return [name, lower === 'authorization' || lower === secretHeader ? REDACTED : value];
    }),
  );
}

/** `text` with every occurrence of the credential's secret values replaced. */
export function scrubCredential(text: string, credential: Credential | undefined): string {
  let scrubbed = text;
  for (const secret of secretValues(credential)) {
    if (secret.length >= MIN_SCRUBBED_LENGTH) scrubbed = scrubbed.replaceAll(secret, REDACTED);
  }
  return scrubbed;
}

/** Longest first, so a value containing another is replaced whole. */
function secretValues(credential: Credential | undefined): string[] {
  switch (credential?.type) {
    case undefined:
      return [];
    case 'bearer':
      return [credential.token];
    case 'basic':
      return [
        Buffer.from(`${credential.username}:${credential.password}`).toString('base64'),
        credential.password,
      ].sort((a, b) => b.length - a.length);
    case 'header':
      return [credential.value];
  }
}

/**
 * An attempt's outcome as the admin API may show it: for an endpoint with a credential, the
 * answer's start withheld (an empty answer stays empty) and the credential's values scrubbed
 * from the error text.
 */
export function scrubOutcome(
  outcome: AttemptOutcome,
  credential: Credential | undefined,
): AttemptOutcome {
  const withheld = credential !== undefined && outcome.bodyStart !== '';
  const scrubbed: AttemptOutcome = {
    ...outcome,
    bodyStart: withheld ? BODY_WITHHELD : outcome.bodyStart,
  };
  if (outcome.error !== undefined) scrubbed.error = scrubCredential(outcome.error, credential);
  return scrubbed;
}
