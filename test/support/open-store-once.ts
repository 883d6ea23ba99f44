/**
 * Opens the store at argv[2] (a path for SQLite, or a postgres:// URL), migrating it, and
 * closes it: what every process of a deployment does first at start-up. For the tests of many
 * processes starting on one new database.
 */
import { openStore } from '../../src/consumer/store/open-store.ts';

const location = process.argv[2];
if (location === undefined) throw new Error('usage: open-store-once.ts <path or postgres URL>');
const store = await openStore(location.startsWith('postgres') ? location : `sqlite:${location}`);
await store.close();
console.log('opened');
