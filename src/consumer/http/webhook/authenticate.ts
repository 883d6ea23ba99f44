/**
 * The signature, verified over the raw bytes exactly as received (before they are decoded or
 * parsed), then the optional credential, which never replaces it: alone a credential stops
 * neither a modified nor a replayed request.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { SignatureError, verifySignature } from '../../../protocol/index.ts';
import type { WebhookSettings } from '../settings.ts';
import { signatureRejection } from './before-body.ts';
import { createCredentialCheck } from './credential.ts';
import { Rejection } from './rejection.ts';

export type Authenticate = (request: {
  signatureHeader: string | undefined;
  body: Buffer;
  headers: IncomingHttpHeaders;
}) => Rejection | undefined;

export function createAuthenticate(options: {
  config: Pick<WebhookSettings, 'webhookSecrets' | 'webhookToleranceSeconds' | 'webhookCredential'>;
  now: () => number;
}): Authenticate {
  const { config, now } = options;
  const credentialOk =
    config.webhookCredential === undefined
      ? () => true
      : createCredentialCheck(config.webhookCredential);
  return ({ signatureHeader, body, headers }) => {
    try {
      verifySignature({
        header: signatureHeader,
        body,
        secrets: config.webhookSecrets,
        toleranceSeconds: config.webhookToleranceSeconds,
        now,
      });
    } catch (error) {
      if (error instanceof SignatureError) return signatureRejection(error);
      throw error;
    }
    if (credentialOk(headers)) return undefined;
    return new Rejection('unauthorized', {
      status: 401,
      title: 'Invalid credential',
      detail: 'The configured credential (WEBHOOK_CREDENTIAL) was missing or did not match.',
    });
  };
}
