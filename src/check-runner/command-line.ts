/**
 * The command lines of the checking commands (`npm run conformance`, `importer:check`,
 * `sink:check`), parsed strictly: an unknown option, a missing value or a second subject is a
 * UsageError naming it, which the command prints with its usage (exit 2).
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** node:util's parseArgs, its errors as UsageErrors. */
export function parseCommandLine<T extends ParseArgsConfig>(
  config: T,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * The one thing a kit checks, as the command line names it (`what`: `importer`, `sink`), or
 * undefined when it names none.
 */
export function subjectOf(positionals: readonly string[], what: string): string | undefined {
  if (positionals.length > 1) {
    throw new UsageError(
      `one ${what} at a time, got ${positionals.length}: ${positionals.join(' ')}`,
    );
  }
  const [subject] = positionals;
  if (subject !== undefined && subject.trim() === '') throw new UsageError(`the ${what} is empty`);
  return subject;
}
