/**
 * The command line of `npm run sink:check -- [sink] [options]`, as one pure parser: a bad
 * option is a UsageError naming it.
 */
import { parseCommandLine, subjectOf, UsageError } from '../check-runner/command-line.ts';

export interface SinkCheckArgs {
  /** The sink, a name of src/sinks/ or a path; undefined: SINK_MODULE. */
  sink?: string;
  /** Print the report as JSON instead of a table. @default false */
  json: boolean;
}

export { UsageError };

export const USAGE = `Usage: npm run sink:check -- [sink] [options]

Checks a status sink against its contract (src/consumer/sink/README.md): runs the consumer and
the service simulator with it, plays status events shuffled and repeated, hands a notice over
twice, and prints each case with PASS, FAIL or n/a (not checked) and the evidence. The sink's
own settings (SINK_ERP_URL, ...) come from the environment or .env: point them at a test
target, for the kit delivers notices of made-up messages. Exit code 0 when every checked case
holds, 1 when one fails, 2 on bad usage or settings.

  [sink]      a name of src/sinks/ (journal, erp-http) or a path
              (default: SINK_MODULE, else journal)
  --json      print the report as JSON (for CI)
  --help      this text

Cases that need control of the target (reading what it holds, outages) run in a test with
describeSinkContract({ target }): src/sink-kit/README.md.`;

export function parseSinkCheckArgs(args: readonly string[]): SinkCheckArgs | 'help' {
  const { values, positionals } = parseCommandLine({
    args: [...args],
    strict: true,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, help: { type: 'boolean' } },
  });
  if (values.help === true) return 'help';
  const result: SinkCheckArgs = { json: values.json === true };
  const sink = subjectOf(positionals, 'sink');
  if (sink !== undefined) result.sink = sink;
  return result;
}
