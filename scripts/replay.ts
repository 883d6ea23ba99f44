#!/usr/bin/env node
/**
 * `npm run replay -- <eventId>... | --dead`: puts dead-lettered (or done/skipped) events back
 * to pending; the running consumer's worker picks them up. Exit 0 when all were replayed, 1
 * when one was not, 2 on bad usage or configuration. It needs DATABASE_URL alone.
 */
import 'dotenv/config';
import { parseArgs } from 'node:util';
import { loadStoreConfig, readConfig } from '../src/consumer/config.ts';
import { MissingDatabaseError, openStore } from '../src/consumer/store/open-store.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { dead: { type: 'boolean', default: false } },
});
if (positionals.length === 0 && !values.dead) {
  console.error('usage: npm run replay -- <eventId>...   or   npm run replay -- --dead');
  process.exit(2);
}
// Only the store: replay never calls the API nor verifies a webhook.
const read = readConfig(process.env, loadStoreConfig);
if ('error' in read) {
  console.error(read.error);
  process.exit(2);
}
const { config } = read;
const store = await openStore(config.databaseUrl, {
  poolSize: config.databasePoolSize,
  create: false,
}).catch((error: unknown) => {
  if (!(error instanceof MissingDatabaseError)) throw error;
  console.error(`replay: ${error.message}`);
  process.exit(2);
});
const ids = values.dead ? await deadEventIds() : positionals;
let failures = 0;
for (const eventId of ids) {
  const outcome = await store.events.replay(eventId, Date.now());
  if (outcome !== 'replayed') failures += 1;
  console.log(`${eventId}: ${outcome}`);
}
await store.close();

console.log(`replay: ${ids.length - failures} replayed, ${failures} not`);
process.exitCode = failures > 0 ? 1 : 0;

/** Every dead event, a page at a time, gathered before any is replayed (which moves it). */
async function deadEventIds(): Promise<string[]> {
  const ids: string[] = [];
  for (let after: string | null | undefined; after !== null; ) {
    const page = await store.events.list({ state: 'dead', limit: 1000, after });
    ids.push(...page.items.map((event) => event.eventId));
    after = page.next;
  }
  return ids;
}
