/**
 * The HTTP side's configuration section (docs/configuration.md): the webhook endpoint and its
 * limits, and the operations routes. config.ts composes it with the others.
 */
import {
  CREDENTIAL_SPEC_FORMAT,
  parseCredentialSpec,
  type WebhookCredential,
} from '../../protocol/index.ts';
import type { Reader } from '../settings/reader.ts';

/** WEBHOOK_CREDENTIAL, parsed: the protocol's credential (docs/signature.md#credential). */
export type Credential = WebhookCredential;

export interface WebhookSettings {
  /** @default 3000 */
  port: number;
  /** @default '/webhooks' */
  webhookPath: string;
  /** Signing secrets; more than one during a rotation. Required. */
  webhookSecrets: readonly string[];
  /** @default 300 */
  webhookToleranceSeconds: number;
  /** Larger bodies get 413, counted on the wire while reading. @default 1048576 (1 MiB) */
  webhookMaxBodyBytes: number;
  /**
   * Open connections above which a webhook request is answered 503 with Retry-After, unread.
   * At twice this, new connections are closed at once. @default 256
   */
  webhookMaxConnections: number;
  /**
   * Body bytes being read at once over all webhook requests (a request without Content-Length
   * counts as WEBHOOK_MAX_BODY_BYTES); a request that would pass it gets 503. At least
   * webhookMaxBodyBytes. @default 16777216 (16 MiB)
   */
  webhookMaxInflightBytes: number;
  /** Optional credential the service sends besides the signature. @default undefined */
  webhookCredential: Credential | undefined;
}

export interface OperationsSettings {
  /** Enables /admin when set; at least 32 characters. @default undefined */
  adminToken: string | undefined;
  /**
   * When set, /healthz, /readyz, /metrics and /admin are served on this port instead of PORT,
   * which then serves the webhook path only. @default undefined (everything on PORT)
   */
  operationsPort: number | undefined;
}

/** An admin token shorter than this is refused: it guards replay and the message views. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;
/** A signing secret shorter than this draws a start-up warning (never a refusal). */
export const WEBHOOK_SECRET_WARN_LENGTH = 16;

/** `webhooks: false` for commands that receive none: WEBHOOK_SECRETS is then not required. */
export function readWebhookSettings(read: Reader, webhooks: boolean): WebhookSettings {
  const webhookMaxBodyBytes = read.integer('WEBHOOK_MAX_BODY_BYTES', 1_048_576, { min: 1 });
  return {
    port: read.integer('PORT', 3000, { min: 0, max: 65535 }),
    webhookPath: read.string('WEBHOOK_PATH', '/webhooks', (v) =>
      v.startsWith('/') ? undefined : 'must start with "/"',
    ),
    webhookSecrets: webhooks ? read.list('WEBHOOK_SECRETS') : [],
    webhookToleranceSeconds: read.integer('WEBHOOK_TOLERANCE_SECONDS', 300, { min: 1 }),
    webhookMaxBodyBytes,
    webhookMaxConnections: read.integer('WEBHOOK_MAX_CONNECTIONS', 256, { min: 1, max: 1_000_000 }),
    // Never below one whole body, or a body at the limit could never be admitted.
    webhookMaxInflightBytes: read.integer(
      'WEBHOOK_MAX_INFLIGHT_BYTES',
      Math.max(16_777_216, webhookMaxBodyBytes),
      { min: webhookMaxBodyBytes },
    ),
    webhookCredential: read.optional('WEBHOOK_CREDENTIAL', parseCredential),
  };
}

export function readOperationsSettings(read: Reader, port: number): OperationsSettings {
  const settings: OperationsSettings = {
    adminToken: read.optional('ADMIN_TOKEN', (v) =>
      v.length >= ADMIN_TOKEN_MIN_LENGTH
        ? { value: v }
        : {
            problem: `must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters long (for example the output of \`openssl rand -hex 32\`)`,
          },
    ),
    operationsPort: read.optionalInteger('OPERATIONS_PORT', { min: 0, max: 65535 }),
  };
  if (settings.operationsPort !== undefined && settings.operationsPort !== 0) {
    if (settings.operationsPort === port)
      read.problem('OPERATIONS_PORT must differ from PORT (leave it unset to serve both on PORT)');
  }
  return settings;
}

/**
 * Start-up warnings of this section: a short signing secret is only suspicious (its format is
 * the service's to choose); the usual cause is a secret copied in part. Never contains a secret.
 */
export function webhookWarnings(settings: Pick<WebhookSettings, 'webhookSecrets'>): string[] {
  const secrets = settings.webhookSecrets;
  return secrets.flatMap((secret, index) =>
    secret.length < WEBHOOK_SECRET_WARN_LENGTH
      ? [
          `WEBHOOK_SECRETS entry ${index + 1} of ${secrets.length} is shorter than ${WEBHOOK_SECRET_WARN_LENGTH} characters: check that the whole signing secret was copied`,
        ]
      : [],
  );
}

/** Parses `bearer:<token>`, `basic:<user>:<password>` or `header:<Name>:<value>`. */
function parseCredential(raw: string): { value: Credential } | { problem: string } {
  const value = parseCredentialSpec(raw);
  return value === undefined ? { problem: CREDENTIAL_SPEC_FORMAT } : { value };
}
