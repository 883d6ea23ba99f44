/**
 * Opens the SQLite store at argv[2] (migrating it) and closes it: what every process of a
 * deployment does first at start-up. For the test of many processes starting on one new file.
 */
import { openSqliteStore } from '../../src/consumer/store/sqlite/sqlite-store.ts';

const path = process.argv[2];
if (path === undefined) throw new Error('usage: open-store-once.ts <path>');
const store = await openSqliteStore(path);
await store.close();
console.log('opened');
