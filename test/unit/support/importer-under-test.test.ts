import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMPORT_GUARANTEE_TESTS, importsByMessage } from '../../support/importer-under-test.ts';
import type { ImporterJournalEntry } from '../../support/journal-importer.ts';

const ROOT = join(import.meta.dirname, '../../..');

describe('the import-guarantee tests', () => {
  it('are exactly the test files that run their processes with the importer under test', () => {
    // `npm run test:importer` runs the list: a test that starts its consumers through the
    // journal and is missing from it would never meet a forker's importer.
    const using = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => relative(ROOT, join(ROOT, 'test', file)))
      .filter((file) => file !== relative(ROOT, import.meta.filename))
      .filter((file) =>
        /createImportJournal|journalImporterEnv|importerUnderTestEnv/.test(
          readFileSync(join(ROOT, file), 'utf8'),
        ),
      );
    expect([...IMPORT_GUARANTEE_TESTS].sort()).toEqual(using.sort());
  });
});

describe('importsByMessage', () => {
  const entry = (fields: Partial<ImporterJournalEntry>): ImporterJournalEntry => ({
    phase: 'start',
    messageId: 'm1',
    pid: 1,
    previouslyAttempted: false,
    ...fields,
  });

  it('counts calls, answers, failures and locations per message', () => {
    const byMessage = importsByMessage([
      entry({}),
      entry({ phase: 'error', error: 'Error: killed' }),
      entry({ pid: 2, previouslyAttempted: true }),
      entry({ phase: 'end', pid: 2, status: 'already_imported', location: 'PI-000001' }),
      entry({ messageId: 'm2' }),
      entry({ messageId: 'm2', phase: 'end', status: 'imported', location: 'PI-000002' }),
    ]);
    expect(Object.fromEntries(byMessage)).toEqual({
      m1: { calls: 2, imported: 0, alreadyImported: 1, errors: 1, locations: ['PI-000001'] },
      m2: { calls: 1, imported: 1, alreadyImported: 0, errors: 0, locations: ['PI-000002'] },
    });
  });
});
