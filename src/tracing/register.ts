/**
 * `node --import <this file> <entry point>`: starts tracing before the entry point's first
 * module loads, when the standard OTEL_* variables ask for it (start-tracing.ts). An entry
 * point of its own, so it reads the environment and exits on a bad value: 2, like the
 * consumer's other configuration errors. It loads .env first, as the entry points do, so the
 * OTEL_* variables can live there beside the others.
 */
import 'dotenv/config';
import { isMainThread } from 'node:worker_threads';
import { ConfigError } from '../consumer/settings/reader.ts';
import { startTracing } from './start-tracing.ts';

// Node runs --import modules in every worker thread too (the SQLite store's writer is one): the
// main thread's SDK is the process's, and a worker must not start a second one.
if (isMainThread) {
  try {
    await startTracing(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}
