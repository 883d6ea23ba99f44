/**
 * Configuration of `npm run provider` (docs/configuration.md#sandbox) as a pure function of an
 * environment record. A bad value throws an error naming the variable; nothing falls back to
 * a default on garbage, because a silently ignored PROVIDER_PORT is a long debugging session.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { type LevelWithSilent, levels } from 'pino';
import { PARTY_IDENTIFIER } from '../protocol/index.ts';
import { DEFAULT_API_TOKEN, DEFAULT_PARTY } from './provider.ts';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.variable = variable;
  }
}

export interface ProviderConfig {
  /** @default 4000 */
  port: number;
  /**
   * Address to listen on. Loopback by default: the admin API reads invoices, rotates secrets
   * and sends requests anywhere. @default '127.0.0.1'
   */
  host: string;
  /**
   * Host names every route answers to besides loopback names, IP literals and PROVIDER_HOST
   * (startProvider adds it when it is a name): PROVIDER_ALLOWED_HOSTS, comma-separated, e.g. a
   * compose service name such as `provider`. Lower case. @default []
   */
  allowedHosts: readonly string[];
  /** Bearer token the /admin routes require. @default undefined (no authentication) */
  adminToken: string | undefined;
  /** @default 'sandbox-token' */
  apiToken: string;
  /** @default '0192:999999999' */
  party: string;
  /** @default undefined (no endpoint is created) */
  webhookUrl: string | undefined;
  /** @default undefined (generated at start and printed once) */
  webhookSecret: string | undefined;
  /** @default 1 */
  timeScale: number;
  /**
   * A PEM file of certificate authorities trusted, besides the usual ones, when webhooks are
   * sent over HTTPS: the CA of a local gateway's certificate. Read by `loadProviderCa`.
   * @default undefined (only the usual authorities)
   */
  caFile: string | undefined;
  /**
   * Demo traffic: a demo supplier sends the sandbox participant an invoice at start and then
   * this often, and registers its payment a few seconds later. 0 sends none. @default 0
   */
  demoIntervalSeconds: number;
  /** @default 'info' */
  logLevel: LogLevel;
  /**
   * NODE_ENV is `production`: logs stay JSON lines, for machines, even on a terminal.
   * @default false
   */
  production: boolean;
}

export type LogLevel = LevelWithSilent;
// pino's own names, so the list cannot drift from what the logger accepts.
const LOG_LEVELS: readonly string[] = [...Object.keys(levels.values), 'silent'];

type Env = Readonly<Record<string, string | undefined>>;

/** A DNS name (a compose service name, say): nothing that needs quoting. */
const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/;

/**
 * A value fit for an error message: the `user:password@` of a URL-like value is redacted (a
 * webhook URL may carry credentials), because these messages land in terminals and CI logs.
 */
function shown(value: string): string {
  return JSON.stringify(value.replace(/^([a-z][a-z0-9+.-]*:\/*)[^@]*@/i, '$1[redacted]@'));
}

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function port(env: Env, name: string, fallback: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= 0 && value <= 65535)) {
    throw new ConfigError(name, `${shown(raw)} is not a port number (0 to 65535).`);
  }
  return value;
}

function wholeSeconds(env: Env, name: string, fallback: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw))
    throw new ConfigError(name, `${shown(raw)} is not a whole number of seconds.`);
  return Number(raw);
}

function positiveNumber(env: Env, name: string, fallback: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value > 0)) throw new ConfigError(name, `${shown(raw)} is not a positive number.`);
  return value;
}

export function loadProviderConfig(env: Env): Readonly<ProviderConfig> {
  const party = read(env, 'PROVIDER_PARTY') ?? DEFAULT_PARTY;
  if (!PARTY_IDENTIFIER.test(party)) {
    throw new ConfigError(
      'PROVIDER_PARTY',
      `${shown(party)} is not of the form <scheme>:<number>.`,
    );
  }
  const webhookUrl = read(env, 'PROVIDER_WEBHOOK_URL');
  if (webhookUrl !== undefined && !/^https?:\/\//.test(webhookUrl)) {
    throw new ConfigError('PROVIDER_WEBHOOK_URL', `${shown(webhookUrl)} is not an http(s) URL.`);
  }
  if (webhookUrl !== undefined && !URL.canParse(webhookUrl)) {
    throw new ConfigError('PROVIDER_WEBHOOK_URL', `${shown(webhookUrl)} is not a valid URL.`);
  }
  const host = read(env, 'PROVIDER_HOST') ?? '127.0.0.1';
  // An IP address or a host name (a compose service name, say); nothing that needs quoting.
  if (isIP(host) === 0 && !HOST_NAME.test(host)) {
    throw new ConfigError('PROVIDER_HOST', `${shown(host)} is not an address or host name.`);
  }
  const allowedHosts = (read(env, 'PROVIDER_ALLOWED_HOSTS') ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  for (const name of allowedHosts) {
    if (!HOST_NAME.test(name) || isIP(name) !== 0) {
      throw new ConfigError(
        'PROVIDER_ALLOWED_HOSTS',
        `${shown(name)} is not a host name (IP addresses are always accepted; no port, no scheme).`,
      );
    }
  }
  const logLevel = read(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(
      'LOG_LEVEL',
      `${shown(logLevel)} is not one of ${LOG_LEVELS.join(', ')}.`,
    );
  }
  return Object.freeze({
    port: port(env, 'PROVIDER_PORT', 4000),
    host,
    allowedHosts: Object.freeze([...new Set(allowedHosts.map((name) => name.toLowerCase()))]),
    // Never echoed in errors: it is a secret.
    adminToken: read(env, 'PROVIDER_ADMIN_TOKEN'),
    apiToken: read(env, 'PROVIDER_API_TOKEN') ?? DEFAULT_API_TOKEN,
    party,
    webhookUrl,
    webhookSecret: read(env, 'PROVIDER_WEBHOOK_SECRET'),
    timeScale: positiveNumber(env, 'PROVIDER_TIME_SCALE', 1),
    caFile: read(env, 'PROVIDER_CA_FILE'),
    demoIntervalSeconds: wholeSeconds(env, 'DEMO_INTERVAL_SECONDS', 0),
    logLevel: logLevel as LogLevel,
    production: read(env, 'NODE_ENV') === 'production',
  });
}

/**
 * The certificates of PROVIDER_CA_FILE, checked to be PEM certificates, or undefined when it is
 * unset. Kept apart from `loadProviderConfig`, which stays a pure function of the environment;
 * a file that cannot be read is still an error naming the variable.
 */
export function loadProviderCa(
  config: Pick<ProviderConfig, 'caFile'>,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): string | undefined {
  if (config.caFile === undefined) return undefined;
  let pem: string;
  try {
    pem = readFile(config.caFile);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError('PROVIDER_CA_FILE', `${shown(config.caFile)} cannot be read (${code}).`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError(
      'PROVIDER_CA_FILE',
      `${shown(config.caFile)} holds no PEM certificate ("-----BEGIN CERTIFICATE-----").`,
    );
  }
  return pem;
}
