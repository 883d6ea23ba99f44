/**
 * The optional credential an endpoint receives besides the signature (SPEC.md section 5.2),
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
