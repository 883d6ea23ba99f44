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
  /**
   * Every /admin route (docs/operating.md#admin-tokens); at least 32 characters. /admin is
   * served when this or a scoped token below is set. @default undefined
   */
  adminToken: string | undefined;
  /**
   * A scoped token for an ERP: POST /admin/submissions and reading submissions, nothing else;
   * at least 32 characters, unlike the other tokens. @default undefined
   */
  adminSubmitToken: string | undefined;
  /**
   * A scoped token for dashboards and people on call: every GET of /admin, no change; at least
   * 32 characters, unlike the other tokens. @default undefined
   */
  adminReadToken: string | undefined;
  /**
   * When set, /healthz, /readyz, /metrics and /admin are served on this port instead of PORT,
   * which then serves the webhook path only. @default undefined (everything on PORT)
   */
  operationsPort: number | undefined;
}

/**
 * An admin token shorter than this is refused: it guards replay and the message views. The
 * scoped tokens are held to the same length: one that submits invoices is worth guessing too.
 */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

/** The admin tokens by variable, in the order their problems are reported. */
const ADMIN_TOKEN_VARIABLES = [
  ['ADMIN_TOKEN', 'adminToken'],
  ['ADMIN_SUBMIT_TOKEN', 'adminSubmitToken'],
  ['ADMIN_READ_TOKEN', 'adminReadToken'],
] as const;
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
    adminToken: readAdminToken(read, 'ADMIN_TOKEN'),
    adminSubmitToken: readAdminToken(read, 'ADMIN_SUBMIT_TOKEN'),
    adminReadToken: readAdminToken(read, 'ADMIN_READ_TOKEN'),
    operationsPort: read.optionalInteger('OPERATIONS_PORT', { min: 0, max: 65535 }),
  };
  refuseSharedAdminTokens(read, settings);
  if (settings.operationsPort !== undefined && settings.operationsPort !== 0) {
    if (settings.operationsPort === port)
      read.problem('OPERATIONS_PORT must differ from PORT (leave it unset to serve both on PORT)');
  }
  return settings;
}

function readAdminToken(read: Reader, name: string): string | undefined {
  return read.optional(name, (v) =>
    v.length >= ADMIN_TOKEN_MIN_LENGTH
      ? { value: v }
      : {
          problem: `must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters long (for example the output of \`openssl rand -hex 32\`)`,
        },
  );
}

/**
 * Two admin variables holding one value: a request with it would be taken for the wider token,
 * so the scoped one would grant more than its name says. Named, never shown.
 */
function refuseSharedAdminTokens(read: Reader, settings: OperationsSettings): void {
  const seen = new Map<string, string>();
  for (const [name, key] of ADMIN_TOKEN_VARIABLES) {
    const value = settings[key];
    if (value === undefined) continue;
    const earlier = seen.get(value);
    if (earlier !== undefined) {
      read.problem(
        `${name} must differ from ${earlier}: each admin token says what its holder may do, and one value cannot say two things; generate one per holder (openssl rand -hex 32)`,
      );
    }
    seen.set(value, name);
  }
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
