/**
 * A checking command from its arguments to its exit code, the same for each
 * (scripts/conformance.ts, importer-check.ts, sink-check.ts): the report as a table or, with
 * --json, as JSON; 0 when every checked case holds, 1 when one fails, 2 on bad usage (with the
 * usage) or when the run could not be made (what stopped it, named). The script only hands it
 * the arguments and exits with what it returns.
 */
import { UsageError } from './command-line.ts';

export interface CheckCommand<Args extends { json: boolean }, Report extends { passed: boolean }> {
  /** As the messages name it: `importer:check`. */
  name: string;
  usage: string;
  /** The arguments, or 'help'; a UsageError when they are wrong. */
  parse(args: readonly string[]): Args | 'help';
  run(args: Args): Promise<Report>;
  /** The report for people. */
  table(report: Report): string;
}

export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

/** Runs `command` with `args`, printing to `output`; resolves to the exit code. */
export async function runCheckCommand<
  Args extends { json: boolean },
  Report extends { passed: boolean },
>(
  command: CheckCommand<Args, Report>,
  args: readonly string[],
  output: CommandOutput,
): Promise<number> {
  try {
    const parsed = command.parse(args);
    if (parsed === 'help') {
      output.out(command.usage);
      return 0;
    }
    const report = await command.run(parsed);
    output.out(parsed.json ? JSON.stringify(report, null, 2) : command.table(report));
    return report.passed ? 0 : 1;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    output.err(
      error instanceof UsageError
        ? `${command.name}: ${message}\n\n${command.usage}`
        : `${command.name}: ${message}`,
    );
    return 2;
  }
}
