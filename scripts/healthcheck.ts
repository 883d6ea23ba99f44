#!/usr/bin/env node
/**
 * `healthcheck` in the image (its HEALTHCHECK), or `node scripts/healthcheck.ts`: exits 0 when
 * the consumer configured by this environment answers 200 on /readyz (on OPERATIONS_PORT when
 * set, else PORT), 1 otherwise. Node's fetch does the request, so the image needs no curl.
 */
import 'dotenv/config';
import { readConfig } from '../src/consumer/config.ts';

const read = readConfig(process.env);
if ('error' in read) {
  console.error(read.error);
  process.exit(1);
}
const port = read.config.operationsPort ?? read.config.port;
const url = `http://127.0.0.1:${port}/readyz`;
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(4000) });
  const body = await res.text();
  if (res.status !== 200) {
    console.error(`${url}: ${res.status} ${body.slice(0, 500)}`);
    process.exitCode = 1;
  }
} catch (error) {
  console.error(`${url}: ${error instanceof Error ? (error.cause ?? error).toString() : error}`);
  process.exitCode = 1;
}
