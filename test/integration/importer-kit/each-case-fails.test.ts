/**
 * Every case of the kit can fail: for each, an importer with the one mistake it exists to
 * catch (test/support/wrong-importers/misbehaving.ts) fails it, while import.once passes (the
 * importer works otherwise). The lost reply, the duplicate and forget() have importers of their
 * own (wrong-importers.test.ts).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startImporterKit } from '../../../src/importer-kit/index.ts';
import type { Misbehaviour } from '../../support/wrong-importers/misbehaving.ts';
import { setUpErpStandin } from './erp-standin-target.ts';

const MISBEHAVING = join(import.meta.dirname, '../../support/wrong-importers/misbehaving.ts');
const standin = setUpErpStandin();

const MISTAKES: Array<[Misbehaviour, string, RegExp]> = [
  ['no-location', 'import.once', /wrong: a message nobody imported before must resolve/],
  [
    'transient-as-permanent',
    'import.transient',
    /wrong: a PermanentImportError while the target is down/,
  ],
  [
    'ignores-signal',
    'import.deadline',
    /wrong: import\(\) (went on with its signal aborted|had not returned 2000 ms after)/,
  ],
  [
    'accepts-refused',
    'import.permanent',
    /wrong: an invoice the target refuses must throw PermanentImportError/,
  ],
  ['one-location', 'import.concurrent', /wrong: messages .* share the location ERP/],
  ['small-documents-only', 'import.large-document', /wrong: a large document must be imported/],
  ['invoices-only', 'import.document-types', /wrong: CreditNote\/XML must resolve 'imported'/],
  [
    'credit-notes-not-booked',
    'import.document-types',
    /wrong: CreditNote\/XML answered 'not_booked': the consumer would mark it delivered/,
  ],
];

describe('each case of the kit fails the importer with its mistake', () => {
  it.each(MISTAKES)('%s fails %s', async (mode, id, why) => {
    const session = await startImporterKit({
      importer: MISBEHAVING,
      // A short ERP timeout: ignores-signal waits for the hanging stand-in until then.
      ...standin.kitOptions({ ERP_TIMEOUT_MS: '3000', WRONG_IMPORTER_MODE: mode }),
    });
    try {
      const report = await session.run(id);
      expect(report.result, report.evidence.join('\n')).toBe('fail');
      expect(report.evidence.join('\n')).toMatch(why);
      if (id !== 'import.once') expect((await session.run('import.once')).result).toBe('pass');
    } finally {
      await session.close();
    }
  });
});
