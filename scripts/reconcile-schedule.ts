#!/usr/bin/env node
/**
 * `reconcile-schedule` in the image, or `node scripts/reconcile-schedule.ts`: runs the
 * reconcile command on RECONCILE_SCHEDULE (cron; daily at 03:17 by default) until stopped, for
 * a deployment without a host cron. Each run is a child process of the reconcile command
 * beside this file, with this process's Node options, environment and output. The reconcile
 * command's configuration (with the importer's) is checked at start, so a bad variable shows
 * now rather than at the first run.
 */
import 'dotenv/config';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadReconcileScheduleConfig, readConfig } from '../src/consumer/config.ts';
import { createLogger } from '../src/consumer/logger.ts';
import { startReconcileSchedule } from '../src/consumer/reconcile/schedule.ts';
import { readSetup } from '../src/consumer/setup.ts';

// reconcile.ts from the sources, reconcile.js once built.
const RECONCILE = fileURLToPath(
  new URL(`./reconcile${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

// What each run will need (the reconcile command's settings, the importer's included).
const consumer = await readSetup(process.env, { webhooks: false });
const schedule = readConfig(process.env, loadReconcileScheduleConfig);
if ('error' in consumer || 'error' in schedule) {
  for (const read of [consumer, schedule]) if ('error' in read) console.error(read.error);
  process.exit(2);
}
const logger = createLogger(consumer.setup.config.logLevel);

let child: ReturnType<typeof spawn> | undefined;
const scheduled = startReconcileSchedule({
  pattern: schedule.config.reconcileSchedule,
  logger,
  async run() {
    // With this process's Node options (npm run reconcile-schedule's memory settings, as
    // npm run reconcile has them); MALLOC_ARENA_MAX comes with the environment.
    child = spawn(process.execPath, [...process.execArgv, RECONCILE], { stdio: 'inherit' });
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    child = undefined;
    return code ?? (signal === null ? 1 : 128);
  },
});

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  // A run in progress is safe to end at any point; it exits at once on SIGTERM.
  child?.kill('SIGTERM');
  await scheduled.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
