/**
 * Reading environment variables for the configuration sections (config.ts composes them): each
 * read either returns a valid value or records a problem that names the variable and what is
 * wrong, so one start-up reports every bad variable at once. Garbage never falls back to a
 * default silently: a bad value is a problem, and the default only stands in while the rest
 * is checked.
 */
import { redactUserinfo } from '../text/redact-userinfo.ts';

/** An environment record: process.env at an entry point, a plain object in tests. */
export type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

export type Reader = ReturnType<typeof createReader>;

/** A reader of `env` that adds what is wrong to `problems`. */
export function createReader(env: Env, problems: string[]) {
  const raw = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const integer = (
    name: string,
    fallback: number,
    range: { min?: number; max?: number },
  ): number => {
    const value = raw(name);
    if (value === undefined) return fallback;
    const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    const { min = 0, max = Number.MAX_SAFE_INTEGER } = range;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got ${shown(value)})`);
      return fallback;
    }
    return n;
  };
  return {
    /** Records a problem that is not about one variable's own value (a cross-check). */
    problem(text: string): void {
      problems.push(text);
    },
    raw,
    string(name: string, fallback: string, check?: (v: string) => string | undefined): string {
      const value = raw(name) ?? fallback;
      const problem = check?.(value);
      if (problem !== undefined) problems.push(`${name} ${problem} (got ${shown(value)})`);
      return value;
    },
    required(name: string, check?: (v: string) => string | undefined): string {
      const value = raw(name);
      if (value === undefined) {
        problems.push(`${name} is required`);
        return '';
      }
      const problem = check?.(value);
      if (problem !== undefined) problems.push(`${name} ${problem} (got ${shown(value)})`);
      return value;
    },
    list(name: string): string[] {
      const value = raw(name);
      const items = (value ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      if (items.length === 0) problems.push(`${name} is required (comma-separated secrets)`);
      return items;
    },
    integer,
    optionalInteger(name: string, range: { min: number; max: number }): number | undefined {
      return raw(name) === undefined ? undefined : integer(name, 0, range);
    },
    boolean(name: string, fallback: boolean): boolean {
      const value = raw(name);
      if (value === undefined) return fallback;
      if (value === 'true' || value === 'false') return value === 'true';
      problems.push(`${name} must be true or false (got ${shown(value)})`);
      return fallback;
    },
    optional<T>(
      name: string,
      parse: (v: string) => { value: T } | { problem: string },
    ): T | undefined {
      const value = raw(name);
      if (value === undefined) return undefined;
      const result = parse(value);
      if ('problem' in result) {
        // The value may be a secret: name the variable, never echo it.
        problems.push(`${name} ${result.problem}`);
        return undefined;
      }
      return result.value;
    },
  };
}

/**
 * Reads one section alone (a command that needs only the API settings, or only the store's):
 * the settings frozen, or a ConfigError listing every problem.
 */
export function loadSection<T extends object>(env: Env, read: (reader: Reader) => T): Readonly<T> {
  const problems: string[] = [];
  const settings = read(createReader(env, problems));
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(settings);
}

/** Quoted, with URL userinfo redacted and at most 200 characters: a value fit to echo. */
function shown(value: string): string {
  const redacted = redactUserinfo(value);
  return JSON.stringify(redacted.length > 200 ? `${redacted.slice(0, 200)}…` : redacted);
}
