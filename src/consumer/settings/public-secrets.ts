/**
 * Secrets and tokens this repository prints for anyone to read: the defaults of its sandbox
 * set-ups and the placeholders of files meant to be copied. In production (NODE_ENV=production,
 * as the image sets) the consumer refuses to start with one of them (config.ts). Before issue 26
 * docker/compose.yaml fell back to these when a variable was not set, so an operator who forgot
 * WEBHOOK_SECRETS accepted webhooks signed with a secret anyone can read, without a warning
 * (its 26 characters pass the length warning).
 *
 * Only values this repository ships as a default or a placeholder are listed, not every example
 * of the guides: a fork that certifies its image against the simulator chooses its own.
 */

export interface PublicSecret {
  value: string;
  /** Where the repository publishes it, for the error message. */
  where: string;
}

export const PUBLIC_SECRETS: readonly PublicSecret[] = [
  { value: 'whsec_compose-sandbox-only', where: "the compose sandbox's public secret" },
  { value: 'whsec_replace_me', where: ".env.example's placeholder" },
  { value: 'sandbox-token', where: "the sandbox's public API token" },
  { value: 'sandbox-admin-token', where: "the compose sandbox's public admin token" },
  { value: 'dev-admin-token-for-local-use-only', where: "npm run dev's public admin token" },
  { value: 'compose-sandbox-only', where: "the compose sandbox's public PostgreSQL password" },
];

const byValue = new Map(PUBLIC_SECRETS.map((secret) => [secret.value, secret]));

/** `"value" (where)`: the value is public, so naming it helps find where it came from. */
function named(value: string): string | undefined {
  const secret = byValue.get(value);
  return secret === undefined ? undefined : `${JSON.stringify(value)} (${secret.where})`;
}

/**
 * One problem per public value among the consumer's secrets, each saying what to set instead.
 * API_TOKEN is refused only towards an https:// API: the sandbox speaks plain HTTP, and the
 * benchmarks, the container tests and a fork's certification run the production image against
 * it with its token, which gives no one anything (it is the consumer's credential to the API).
 */
export function publicSecretProblems(config: {
  webhookSecrets: readonly string[];
  apiToken: string;
  apiBaseUrl: string;
  adminToken: string | undefined;
  adminSubmitToken: string | undefined;
  adminReadToken: string | undefined;
  databaseUrl: string;
}): string[] {
  const problems: string[] = [];
  config.webhookSecrets.forEach((secret, index) => {
    const name = named(secret);
    if (name === undefined) return;
    const entry = config.webhookSecrets.length > 1 ? ` (entry ${index + 1})` : '';
    problems.push(
      `WEBHOOK_SECRETS contains${entry} ${name}: anyone can sign webhooks with it; set the signing secret of your endpoint`,
    );
  });
  const apiToken = named(config.apiToken);
  if (apiToken !== undefined && /^https:/i.test(config.apiBaseUrl)) {
    problems.push(
      `API_TOKEN is ${apiToken}, sent to an https:// API: set the token the service gave you`,
    );
  }
  // The scoped tokens as ADMIN_TOKEN: less to lose with one, but an invoice sent in your
  // name (ADMIN_SUBMIT_TOKEN) or every message read (ADMIN_READ_TOKEN) is still too much.
  const adminTokens = [
    ['ADMIN_TOKEN', config.adminToken],
    ['ADMIN_SUBMIT_TOKEN', config.adminSubmitToken],
    ['ADMIN_READ_TOKEN', config.adminReadToken],
  ] as const;
  for (const [variable, value] of adminTokens) {
    const name = value === undefined ? undefined : named(value);
    if (name === undefined) continue;
    problems.push(
      `${variable} is ${name}: anyone who reaches the operations port could use it; generate one (openssl rand -hex 32), or leave it unset`,
    );
  }
  const password = databasePassword(config.databaseUrl);
  const passwordName = password === undefined ? undefined : named(password);
  if (passwordName !== undefined) {
    problems.push(
      `DATABASE_URL's password is ${passwordName}: set a password of your own (POSTGRES_PASSWORD with docker/compose.postgres.yaml)`,
    );
  }
  return problems;
}

/** The password of a `postgres://user:password@host/...` URL, decoded; undefined without one. */
function databasePassword(databaseUrl: string): string | undefined {
  if (!/^postgres(ql)?:\/\//i.test(databaseUrl) || !URL.canParse(databaseUrl)) return undefined;
  const { password } = new URL(databaseUrl);
  if (password === '') return undefined;
  try {
    return decodeURIComponent(password);
  } catch {
    return password;
  }
}
