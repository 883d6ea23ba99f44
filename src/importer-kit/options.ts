/**
 * The command line of `npm run importer:check -- [importer] [options]`, as one pure parser:
 * a bad option is a UsageError naming it.
 */
import { parseCommandLine, subjectOf, UsageError } from '../check-runner/command-line.ts';

export interface ImporterCheckArgs {
  /** The importer, a name of src/importers/ or a path; undefined: IMPORTER_MODULE. */
  importer?: string;
  /** An invoice number the importer's target refuses for good. */
  rejectInvoiceNo?: string;
  /** A target controller module (target-module.ts), a path from the project's root. */
  target?: string;
  /** Print the report as JSON instead of a table. @default false */
  json: boolean;
}

export { UsageError };

export const USAGE = `Usage: npm run importer:check -- [importer] [options]

Checks an importer against its contract (src/consumer/importer/README.md): starts the service
simulator, makes inbound messages in it, imports each with fresh instances of the importer
(as after a restart) and prints each case with PASS, FAIL or n/a (not checked) and the
evidence. The importer's own settings (ERP_BASE_URL, ...) come from the environment or .env.
Exit code 0 when every checked case holds, 1 when one fails, 2 on bad usage or settings.

  [importer]                  a name of src/importers/ (file, erp-http) or a path
                              (default: IMPORTER_MODULE, else file)
  --reject-invoice-no <no>    an invoice number the importer's target refuses for good
                              (enables import.permanent)
  --target <module>           a controller of the importer's target: a module (a path from
                              the project's root) whose default export takes it down and up,
                              makes it hang, loses a reply, counts its records (enables
                              import.transient and the target halves of import.deadline and
                              import.lost-reply; e.g. test/support/importer-targets/erp-standin.ts)
  --json                      print the report as JSON (for CI)
  --help                      this text

Without --target, the cases that need control of the target are not checked (n/a); the
controller is described in src/importer-kit/README.md#target.`;

export function parseImporterCheckArgs(args: readonly string[]): ImporterCheckArgs | 'help' {
  const { values, positionals } = parse(args);
  if (values.help === true) return 'help';
  const result: ImporterCheckArgs = { json: values.json === true };
  const importer = subjectOf(positionals, 'importer');
  if (importer !== undefined) result.importer = importer;
  const reject = values['reject-invoice-no'];
  if (reject !== undefined) {
    if (reject.trim() === '') throw new UsageError('--reject-invoice-no is empty');
    result.rejectInvoiceNo = reject;
  }
  const target = values.target;
  if (target !== undefined) {
    if (target.trim() === '') throw new UsageError('--target is empty');
    result.target = target;
  }
  return result;
}

function parse(args: readonly string[]) {
  return parseCommandLine({
    args: [...args],
    strict: true,
    allowPositionals: true,
    options: {
      'reject-invoice-no': { type: 'string' },
      target: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
}
