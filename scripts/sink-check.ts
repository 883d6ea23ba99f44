#!/usr/bin/env node
/**
 * npm run sink:check -- [sink] [--json]
 * Runs the sink contract kit (src/sink-kit/README.md) against a status sink: a name of
 * src/sinks/ or a path, SINK_MODULE by default. Its settings come from the environment and
 * .env. Exit 0 when every checked case holds, 1 when one fails, 2 on bad usage, or when the
 * sink cannot be loaded (each problem named, as `npm start` names them).
 */
import 'dotenv/config';
import { runCheckCommand } from '../src/check-runner/check-command.ts';
import { runSinkKit } from '../src/sink-kit/kit.ts';
import { parseSinkCheckArgs, USAGE } from '../src/sink-kit/options.ts';
import { formatTable } from '../src/sink-kit/report.ts';

const code = await runCheckCommand(
  {
    name: 'sink:check',
    usage: USAGE,
    parse: parseSinkCheckArgs,
    run: (args) =>
      runSinkKit({ env: process.env, ...(args.sink === undefined ? {} : { sink: args.sink }) }),
    table: formatTable,
  },
  process.argv.slice(2),
  { out: console.log, err: console.error },
);
// The sink's keep-alive connections (to an ERP, say) would hold the process open.
process.exit(code);
