#!/usr/bin/env node
/**
 * npm run importer:check -- [importer] [--reject-invoice-no <no>] [--target <module>] [--json]
 * Runs the importer contract kit (src/importer-kit/README.md) against an importer: a name of
 * src/importers/ or a path, IMPORTER_MODULE by default. Its settings come from the environment
 * and .env; with --target, a controller of its target (a module) lets every case run. Exit 0
 * when every checked case holds, 1 when one fails, 2 on bad usage, or when the importer or the
 * target controller cannot be loaded (each problem named, as `npm start` names them).
 */
import 'dotenv/config';
import { runCheckCommand } from '../src/check-runner/check-command.ts';
import { runImporterKit } from '../src/importer-kit/kit.ts';
import { parseImporterCheckArgs, USAGE } from '../src/importer-kit/options.ts';
import { formatTable } from '../src/importer-kit/report.ts';

const code = await runCheckCommand(
  {
    name: 'importer:check',
    usage: USAGE,
    parse: parseImporterCheckArgs,
    run: (args) =>
      runImporterKit({
        env: process.env,
        ...(args.importer === undefined ? {} : { importer: args.importer }),
        ...(args.rejectInvoiceNo === undefined ? {} : { rejectInvoiceNo: args.rejectInvoiceNo }),
        ...(args.target === undefined ? {} : { targetModule: args.target }),
      }),
    table: formatTable,
  },
  process.argv.slice(2),
  { out: console.log, err: console.error },
);
// The importer's keep-alive connections (to an ERP, say) would hold the process open.
process.exit(code);
