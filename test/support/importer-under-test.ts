/**
 * Which importer the import-guarantee tests (crash, claim takeover, one handler, reconcile,
 * replay, replicas, repeated crashes, soak) run with: the file importer in `npm test`, or the
 * forker's when `npm run test:importer` sets TEST_IMPORTER (docs/forking.md). The tests run it
 * behind the journal importer (journal-importer.ts) and count imports in the journal, so they
 * hold for any importer, whatever it does with the documents.
 */
import { join } from 'node:path';
import { coreVariableNames } from '../../src/consumer/config.ts';
import { readImporter } from '../../src/consumer/importer/index.ts';
import { parseJournal } from './journal-importer.ts';

/** The journal importer's module: IMPORTER_MODULE of every process these tests start. */
export const JOURNAL_IMPORTER = join(import.meta.dirname, 'journal-importer.ts');

/** The importer under test: TEST_IMPORTER, else the file importer. */
export const IMPORTER_UNDER_TEST = process.env.TEST_IMPORTER?.trim() || 'file';

/**
 * The environment a consumer process needs to import through the journal: IMPORTER_MODULE,
 * the journal's file, the importer under test and its own settings (taken from this process's
 * environment, where `npm run test:importer` put them, as .env would in production).
 */
export async function journalImporterEnv(journal: string): Promise<Record<string, string>> {
  const loaded = await readImporter(
    { ...process.env, IMPORTER_MODULE: IMPORTER_UNDER_TEST },
    { coreVariables: coreVariableNames() },
  );
  if ('problems' in loaded) throw new Error(loaded.problems.join('\n'));
  const settings: Record<string, string> = {};
  for (const name of loaded.importer.variables) {
    const value = process.env[name];
    if (value !== undefined) settings[name] = value;
  }
  return {
    ...settings,
    IMPORTER_MODULE: JOURNAL_IMPORTER,
    TEST_IMPORTER_LOG: journal,
    TEST_IMPORTER_INNER: IMPORTER_UNDER_TEST,
  };
}

/** What the journal says of each message: calls, imports ('imported' answers), and locations. */
export function importsByMessage(
  journalText: string,
): Map<string, { calls: number; imported: number; locations: string[] }> {
  const byMessage = new Map<string, { calls: number; imported: number; locations: string[] }>();
  for (const entry of parseJournal(journalText)) {
    const seen = byMessage.get(entry.messageId) ?? { calls: 0, imported: 0, locations: [] };
    if (entry.phase === 'start') seen.calls += 1;
    if (entry.phase === 'end' && entry.status === 'imported') seen.imported += 1;
    if (entry.phase === 'end' && entry.location !== undefined) seen.locations.push(entry.location);
    byMessage.set(entry.messageId, seen);
  }
  return byMessage;
}
