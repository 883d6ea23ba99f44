/**
 * Which importer the import-guarantee tests run with: the file importer in `npm test`, or the
 * forker's when `npm run test:importer` (scripts/test-importer.ts) sets TEST_IMPORTER to the
 * IMPORTER_MODULE of their .env. The tests run it behind the journal importer
 * (journal-importer.ts) and count imports in the journal, never in DOCUMENTS_DIR, so what they
 * prove holds for any importer, whatever it does with the documents.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { coreVariableNames } from '../../src/consumer/config.ts';
import { readImporter } from '../../src/consumer/importer/index.ts';
import { type ImporterJournalEntry, parseJournal } from './journal-importer.ts';

/**
 * The tests that prove the import guarantee with real processes, from the project's root:
 * what `npm run test:importer` runs. Each starts its consumers (and reconciliations) with
 * journalImporterEnv(), mostly through createImportJournal(); a test that inspects the file
 * importer's own files is not one of them.
 */
export const IMPORT_GUARANTEE_TESTS: readonly string[] = [
  'test/e2e/crash.test.ts',
  'test/e2e/claim-takeover.test.ts',
  'test/e2e/one-handler.test.ts',
  'test/e2e/postgres-outage.test.ts',
  'test/e2e/reconcile.test.ts',
  'test/e2e/replicas.test.ts',
  'test/e2e/soak.test.ts',
  'test/reliability/repeated-crashes.test.ts',
];

/** The journal importer's module: IMPORTER_MODULE of every process these tests start. */
export const JOURNAL_IMPORTER = join(import.meta.dirname, 'journal-importer.ts');

/** The importer under test, as IMPORTER_MODULE names it: TEST_IMPORTER, else `file`. */
export const IMPORTER_UNDER_TEST = process.env.TEST_IMPORTER?.trim() || 'file';

/**
 * TEST_IMPORTER and the importer under test's own settings, taken from this process's
 * environment (where `npm run test:importer` put them, as .env would in production): what a
 * process needs to hand the importer under test on to the consumers it starts (the soak).
 */
export async function importerUnderTestEnv(): Promise<Record<string, string>> {
  return { TEST_IMPORTER: IMPORTER_UNDER_TEST, ...(await importerSettings()) };
}

/**
 * The environment a consumer or reconcile process needs to import through the journal
 * `journal`: IMPORTER_MODULE, the journal's file, the importer under test and its settings.
 */
export async function journalImporterEnv(journal: string): Promise<Record<string, string>> {
  return {
    ...(await importerSettings()),
    IMPORTER_MODULE: JOURNAL_IMPORTER,
    TEST_IMPORTER_LOG: journal,
    TEST_IMPORTER_INNER: IMPORTER_UNDER_TEST,
  };
}

/** The variables the importer under test reads, as this process has them. */
async function importerSettings(): Promise<Record<string, string>> {
  const loaded = await readImporter(
    { ...process.env, IMPORTER_MODULE: IMPORTER_UNDER_TEST },
    { coreVariables: coreVariableNames() },
  );
  if ('problems' in loaded) {
    throw new Error(`TEST_IMPORTER ${IMPORTER_UNDER_TEST}:\n${loaded.problems.join('\n')}`);
  }
  const settings: Record<string, string> = {};
  for (const name of loaded.importer.variables) {
    const value = process.env[name];
    if (value !== undefined) settings[name] = value;
  }
  return settings;
}

/**
 * The import journal of one test: a file in the test's folder, the environment that makes a
 * process import through it (journalImporterEnv), and what it holds so far.
 */
export interface ImportJournal {
  /** `imports.jsonl` in the folder, empty at first. */
  file: string;
  /** What every process the test starts needs to write it. */
  env: Record<string, string>;
  /** Its entries so far. */
  entries(): ImporterJournalEntry[];
  /** Its entries so far, by message. */
  byMessage(): Map<string, MessageImports>;
  /** waitForJournal() on it. */
  waitFor(
    until: (entries: ImporterJournalEntry[]) => boolean,
    ms?: number,
  ): Promise<ImporterJournalEntry[]>;
}

export async function createImportJournal(dir: string): Promise<ImportJournal> {
  const file = join(dir, 'imports.jsonl');
  writeFileSync(file, '');
  return {
    file,
    env: await journalImporterEnv(file),
    entries: () => readJournal(file),
    byMessage: () => importsByMessage(readJournal(file)),
    waitFor: (until, ms) => waitForJournal(file, until, ms),
  };
}

/** The journal's entries so far. */
export function readJournal(journal: string): ImporterJournalEntry[] {
  return parseJournal(readFileSync(journal, 'utf8'));
}

/** Resolves with the journal's entries once `until` holds for them; fails after `ms`. */
export async function waitForJournal(
  journal: string,
  until: (entries: ImporterJournalEntry[]) => boolean,
  ms = 10_000,
): Promise<ImporterJournalEntry[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const entries = readJournal(journal);
    if (until(entries)) return entries;
    if (Date.now() > deadline) {
      throw new Error(`the import journal never got there:\n${readFileSync(journal, 'utf8')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** What the journal says of one message. */
export interface MessageImports {
  /** import() calls started. */
  calls: number;
  /** Calls that answered `imported`: the import itself, once at most. */
  imported: number;
  /** Calls that answered `already_imported` (an earlier call got through). */
  alreadyImported: number;
  /** Calls that threw. */
  errors: number;
  /** Where each answered call says the documents are. */
  locations: string[];
}

/** The journal's entries, by message. */
export function importsByMessage(
  entries: readonly ImporterJournalEntry[],
): Map<string, MessageImports> {
  const byMessage = new Map<string, MessageImports>();
  for (const entry of entries) {
    let seen = byMessage.get(entry.messageId);
    if (seen === undefined) {
      seen = { calls: 0, imported: 0, alreadyImported: 0, errors: 0, locations: [] };
      byMessage.set(entry.messageId, seen);
    }
    if (entry.phase === 'start') seen.calls += 1;
    else if (entry.phase === 'error') seen.errors += 1;
    else {
      if (entry.status === 'imported') seen.imported += 1;
      if (entry.status === 'already_imported') seen.alreadyImported += 1;
      if (entry.location !== undefined && entry.location !== '')
        seen.locations.push(entry.location);
    }
  }
  return byMessage;
}
