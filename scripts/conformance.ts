/**
 * npm run conformance -- --url <consumer webhook URL> --secret <signing secret> [options]
 * Exit 0 when every checked duty holds, 1 when one fails (a consumer that answers too slowly
 * among them), 2 on bad usage or when the run could not be made (the port taken, the consumer
 * not reachable at all).
 */
import { parseConformanceArgs, USAGE, UsageError } from '../src/conformance/options.ts';
import { formatTable } from '../src/conformance/report.ts';
import { runConformance } from '../src/conformance/runner.ts';

try {
  const options = parseConformanceArgs(process.argv.slice(2));
  if (options === 'help') {
    console.log(USAGE);
    process.exit(0);
  }
  const report = await runConformance(options);
  console.log(options.json ? JSON.stringify(report, null, 2) : formatTable(report));
  process.exit(report.passed ? 0 : 1);
} catch (error) {
  if (error instanceof UsageError) console.error(`conformance: ${error.message}\n\n${USAGE}`);
  else console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
