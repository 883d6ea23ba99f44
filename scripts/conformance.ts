/**
 * npm run conformance -- --url <consumer webhook URL> --secret <signing secret> [options]
 * Exit 0 when every checked duty holds, 1 when one fails (a consumer that answers too slowly
 * among them), 2 on bad usage or when the run could not be made (the port taken, the consumer
 * not reachable at all).
 */
import { runCheckCommand } from '../src/check-runner/check-command.ts';
import { parseConformanceArgs, USAGE } from '../src/conformance/options.ts';
import { formatTable } from '../src/conformance/report.ts';
import { runConformance } from '../src/conformance/runner.ts';

const code = await runCheckCommand(
  {
    name: 'conformance',
    usage: USAGE,
    parse: parseConformanceArgs,
    run: runConformance,
    table: formatTable,
  },
  process.argv.slice(2),
  { out: console.log, err: console.error },
);
process.exit(code);
