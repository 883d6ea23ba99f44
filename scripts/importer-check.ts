#!/usr/bin/env node
/**
 * npm run importer:check -- [importer] [--reject-invoice-no <no>] [--json]
 * Runs the importer contract kit (src/importer-kit/README.md) against an importer: a name of
 * src/importers/ or a path, IMPORTER_MODULE by default. Its settings come from the environment
 * and .env. Exit 0 when every checked case holds, 1 when one fails, 2 on bad usage, or when
 * the importer cannot be loaded (each problem named, as `npm start` names them).
 */
import 'dotenv/config';
import { KitConfigError, runImporterKit } from '../src/importer-kit/kit.ts';
import { parseImporterCheckArgs, USAGE, UsageError } from '../src/importer-kit/options.ts';
import { formatTable } from '../src/importer-kit/report.ts';

try {
  const args = parseImporterCheckArgs(process.argv.slice(2));
  if (args === 'help') {
    console.log(USAGE);
    process.exit(0);
  }
  const report = await runImporterKit({
    env: process.env,
    ...(args.importer === undefined ? {} : { importer: args.importer }),
    ...(args.rejectInvoiceNo === undefined ? {} : { rejectInvoiceNo: args.rejectInvoiceNo }),
  });
  console.log(args.json ? JSON.stringify(report, null, 2) : formatTable(report));
  // The importer's keep-alive connections (to an ERP, say) would hold the process open.
  process.exit(report.passed ? 0 : 1);
} catch (error) {
  if (error instanceof UsageError) console.error(`importer:check: ${error.message}\n\n${USAGE}`);
  else if (error instanceof KitConfigError) console.error(`importer:check: ${error.message}`);
  else console.error(`importer:check: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
