#!/usr/bin/env node
/**
 * `npm run test:importer`: the tests that prove the import guarantee with real processes
 * (SIGKILLs, claim takeovers, one handler among many, reconciliation, replicas, the soak), run
 * with the importer this project is configured with (IMPORTER_MODULE, from .env or the
 * environment; `file` when unset) instead of the file importer `npm test` gives them. Its
 * settings reach the tests through the environment, as they reach the consumer.
 *
 *   npm run test:importer                                every import-guarantee test
 *   npm run test:importer -- crash one-handler           those whose path contains a filter
 *   npm run test:importer -- crash --reporter=verbose    filters first, then vitest's options
 *
 * Exit codes: vitest's (0 passed, 1 failed); 2 when the importer or its settings are wrong, or
 * a filter matches none of the tests.
 */
import 'dotenv/config';
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { coreVariableNames } from '../src/consumer/config.ts';
import { readImporter } from '../src/consumer/importer/index.ts';
import { IMPORT_GUARANTEE_TESTS } from '../test/support/importer-under-test.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = fileURLToPath(new URL('../node_modules/.bin/vitest', import.meta.url));

const read = await readImporter(process.env, { coreVariables: coreVariableNames() });
if ('problems' in read) {
  console.error(`test:importer: the importer cannot run:\n  ${read.problems.join('\n  ')}`);
  process.exit(2);
}
const { importer } = read;

// Filters (parts of a test's path) come first; from the first option on, all goes to vitest.
const args = process.argv.slice(2);
const firstOption = args.findIndex((arg) => arg.startsWith('-'));
const filters = firstOption === -1 ? args : args.slice(0, firstOption);
const vitestOptions = firstOption === -1 ? [] : args.slice(firstOption);
const files = IMPORT_GUARANTEE_TESTS.filter(
  (file) => filters.length === 0 || filters.some((filter) => file.includes(filter)),
);
const unmatched = filters.filter(
  (filter) => !IMPORT_GUARANTEE_TESTS.some((f) => f.includes(filter)),
);
if (unmatched.length > 0) {
  console.error(
    `test:importer: ${unmatched.map((f) => JSON.stringify(f)).join(', ')} matches none of the import-guarantee tests:\n  ${IMPORT_GUARANTEE_TESTS.join('\n  ')}`,
  );
  process.exit(2);
}

console.log(
  `test:importer: importer ${importer.name} (IMPORTER_MODULE=${importer.spec}, ${importer.file})`,
);
console.log(`  ${importer.describe({ documentsDir: '<each test folder>/documents' })}`);
console.log(
  `  each import() call journaled by test/support/journal-importer.ts; ${files.length} test files:\n  ${files.join('\n  ')}\n`,
);

const vitest = spawn(VITEST, ['run', ...files, ...vitestOptions], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, TEST_IMPORTER: importer.spec },
});
// Ctrl-C reaches vitest from the terminal itself; a SIGTERM sent to this process is passed on.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => vitest.kill('SIGTERM'));
vitest.on('exit', (code, signal) => {
  process.exit(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
});
