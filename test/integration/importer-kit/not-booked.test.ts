/**
 * Response messages (MLR, eMLR) reach import() like invoices. An importer whose ERP keeps no
 * record of them answers `not_booked` (src/consumer/importer/README.md), and the kit's
 * document-types case passes it: each response answered not_booked, nothing of it at the
 * target, every business document booked once. Answering `not_booked` for a business
 * document stays a failure (each-case-fails.test.ts, credit-notes-not-booked).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startImporterKit } from '../../../src/importer-kit/index.ts';
import { setUpErpStandin } from './erp-standin-target.ts';

const RESPONSES_NOT_BOOKED = join(import.meta.dirname, '../../support/responses-not-booked.ts');
const standin = setUpErpStandin();

describe("the importer kit and 'not_booked'", () => {
  it('passes import.document-types for an importer that does not book MLRs and eMLRs', async () => {
    const session = await startImporterKit({
      importer: RESPONSES_NOT_BOOKED,
      ...standin.kitOptions(),
    });
    try {
      const report = await session.run('import.document-types');
      const evidence = report.evidence.join('\n');
      expect(report.result, evidence).toBe('pass');
      for (const action of ['MessageLevelResponse', 'EMessageLevelResponse']) {
        expect(evidence).toMatch(
          new RegExp(
            `ApplicationResponse/XML \\(${action}\\), message \\S+: import\\(\\) -> not_booked, reason "a ${action}: the ERP keeps no record of responses" \\(\\d+ ms\\), held 0 times by the target`,
          ),
        );
      }
      // The business documents are still each booked once.
      expect(evidence).toMatch(
        /^Invoice\/XML, message \S+: import\(\) -> imported at \S+ .*held once/m,
      );
      expect(evidence).toMatch(
        /^CreditNote\/PDF, message \S+: import\(\) -> imported at .*held once/m,
      );
      expect(evidence).not.toContain('wrong:');
    } finally {
      await session.close();
    }
  });
});
