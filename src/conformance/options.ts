/**
 * Options of the conformance runner, from the command line (`npm run conformance -- ...`) or
 * from a test. One pure parser: a bad option is an error naming it.
 */
import { parseCommandLine, UsageError } from '../check-runner/command-line.ts';
import {
  CREDENTIAL_SPEC_FORMAT,
  parseCredentialSpec,
  type WebhookCredential,
} from '../protocol/index.ts';

export interface ConformanceOptions {
  /** The consumer's webhook URL, e.g. http://127.0.0.1:3000/webhooks. */
  url: string;
  /** The signing secret the consumer verifies with. */
  secret: string;
  /** The credential the consumer expects besides the signature. @default none */
  credential?: WebhookCredential;
  /** Port of the simulator the runner starts; the consumer's API base URL. @default 4000 */
  port: number;
  /** @default '127.0.0.1' */
  host: string;
  /** Bearer token the simulator's messaging API accepts (the consumer's API token). @default 'sandbox-token' */
  apiToken: string;
  /**
   * An invoice number the consumer's importer rejects permanently; without it the
   * permanent-failure duty is not checked. @default none
   */
  rejectInvoiceNo?: string;
  /** A shell command that runs the consumer's reconciliation once. @default none */
  reconcileCommand?: string;
  /**
   * URL answering the consumer's view of a message (`{messageId}` is replaced), in the shape of
   * this project's GET /admin/messages/:messageId. @default none
   */
  stateUrl?: string;
  /** Bearer token for stateUrl. @default none */
  stateToken?: string;
  /** How long to wait for each thing the consumer should do. @default 20000 */
  timeoutMs: number;
  /** Webhooks sent at once to check the answer time under load. @default 50 */
  burst: number;
  /** Print the report as JSON instead of a table. @default false */
  json: boolean;
}

export { UsageError };

export const USAGE = `Usage: npm run conformance -- --url <consumer webhook URL> --secret <signing secret> [options]

Starts the service simulator, points its webhooks at the consumer, plays the scenarios of the
consumer's duties and prints each duty with pass, fail or "not checked" and the evidence.
The consumer's messaging API base URL must be the simulator: http://127.0.0.1:<port>, token
<api-token>. Exit code 0 only when every checked duty holds; 1 when one fails (answers slower
than 5 s fail answer.in-time); 2 on bad usage or when the consumer cannot be reached at all.

  --url <url>                 the consumer's webhook URL (required)
  --secret <secret>           the signing secret the consumer verifies with (required)
  --credential <spec>         bearer:<token> | basic:<user>:<password> | header:<Name>:<value>
  --port <n>                  the simulator's port (default 4000)
  --host <address>            the simulator's address (default 127.0.0.1)
  --api-token <token>         the messaging API token the simulator accepts (default sandbox-token)
  --reject-invoice-no <no>    an invoice number the consumer's importer rejects permanently
  --reconcile-command <cmd>   a shell command running the consumer's reconciliation once
  --state-url <url>           the consumer's view of a message, {messageId} replaced
  --state-token <token>       bearer token for --state-url
  --timeout-ms <n>            wait for each expected call at most this long (default 20000)
  --burst <n>                 webhooks sent at once in the load check (default 50)
  --json                      print the report as JSON (for CI)
  --help                      this text`;

/** Parses command-line arguments; throws UsageError naming what is wrong. */
export function parseConformanceArgs(args: readonly string[]): ConformanceOptions | 'help' {
  const v = parse(args).values;
  if (v.help === true) return 'help';
  if (v.url === undefined) throw new UsageError('--url is required');
  if (v.secret === undefined || v.secret === '') throw new UsageError('--secret is required');
  try {
    new URL(v.url);
  } catch {
    throw new UsageError(`--url: ${JSON.stringify(v.url)} is not a URL`);
  }
  const options: ConformanceOptions = {
    url: v.url,
    secret: v.secret,
    port: integer('--port', v.port, 4000, 0, 65_535),
    host: v.host ?? '127.0.0.1',
    apiToken: v['api-token'] ?? 'sandbox-token',
    timeoutMs: integer('--timeout-ms', v['timeout-ms'], 20_000, 100, 600_000),
    burst: integer('--burst', v.burst, 50, 1, 1000),
    json: v.json === true,
  };
  if (v.credential !== undefined) {
    const credential = parseCredentialSpec(v.credential);
    if (credential === undefined) throw new UsageError(`--credential ${CREDENTIAL_SPEC_FORMAT}`);
    options.credential = credential;
  }
  if (v['reject-invoice-no'] !== undefined) options.rejectInvoiceNo = v['reject-invoice-no'];
  if (v['reconcile-command'] !== undefined) options.reconcileCommand = v['reconcile-command'];
  if (v['state-url'] !== undefined) options.stateUrl = v['state-url'];
  if (v['state-token'] !== undefined) options.stateToken = v['state-token'];
  return options;
}

function parse(args: readonly string[]) {
  const text = { type: 'string' } as const;
  return parseCommandLine({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      url: text,
      secret: text,
      credential: text,
      port: text,
      host: text,
      'api-token': text,
      'reject-invoice-no': text,
      'reconcile-command': text,
      'state-url': text,
      'state-token': text,
      'timeout-ms': text,
      burst: text,
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
}

function integer(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new UsageError(
      `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}
