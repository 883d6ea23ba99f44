/**
 * The optional credential an endpoint receives besides the signature (docs/signature.md#credential),
 * in one place: the simulator adds the header this computes, and the consumer expects exactly
 * it. A credential never replaces the signature: alone it stops neither a modified nor a
 * replayed request.
 */

export type WebhookCredential =
  | { type: 'bearer'; token: string }
  | { type: 'basic'; username: string; password: string }
  | { type: 'header'; name: string; value: string };

/** The header a credential travels in: its lower-case name and exact value. */
export function credentialHeader(credential: WebhookCredential): { name: string; value: string } {
  switch (credential.type) {
    case 'bearer':
      return { name: 'authorization', value: `Bearer ${credential.token}` };
    case 'basic': {
      const encoded = Buffer.from(`${credential.username}:${credential.password}`).toString(
        'base64',
      );
      return { name: 'authorization', value: `Basic ${encoded}` };
    }
    case 'header':
      return { name: credential.name.toLowerCase(), value: credential.value };
  }
}

/** The one-line form of a credential, for configuration and command lines. */
export const CREDENTIAL_SPEC_FORMAT =
  'must be bearer:<token>, basic:<user>:<password> or header:<Name>:<value>';

/**
 * Parses `bearer:<token>`, `basic:<user>:<password>` or `header:<Name>:<value>` (the first
 * colon after the user name separates the password, which may hold colons); undefined for
 * anything else.
 */
export function parseCredentialSpec(raw: string): WebhookCredential | undefined {
  const [type, ...rest] = raw.split(':');
  const joined = rest.join(':');
  if (type === 'bearer' && joined !== '') return { type, token: joined };
  if (type === 'basic' && rest.length >= 2 && rest[0] !== '') {
    return { type, username: rest[0] as string, password: rest.slice(1).join(':') };
  }
  if (type === 'header' && rest.length >= 2 && /^[A-Za-z0-9-]+$/.test(rest[0] as string)) {
    const value = rest.slice(1).join(':');
    if (value !== '') return { type, name: rest[0] as string, value };
  }
  return undefined;
}
