/**
 * The kit fails what it exists to catch, each by the case's name: importers that every other
 * check of the project passes. Each is the example HTTP importer (or the file importer) with
 * one mistake (test/support/wrong-importers/), run against the ERP stand-in with its faults as
 * the target controller.
 */
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { type KitReport, runImporterKit } from '../../../src/importer-kit/index.ts';
import { setUpErpStandin } from './erp-standin-target.ts';

const WRONG = join(import.meta.dirname, '../../support/wrong-importers');

const standin = setUpErpStandin();
beforeEach(() => {
  standin.erp.reset();
});

const check = (importer: string) => runImporterKit({ importer, ...standin.kitOptions() });

const failing = (report: KitReport) =>
  report.cases.filter((c) => c.result === 'fail').map((c) => c.id);
const evidence = (report: KitReport, id: string) =>
  report.cases.find((c) => c.id === id)?.evidence.join('\n') ?? '';

describe('the importer kit against wrong importers', () => {
  it('fails a 409 treated as a refusal: the lost reply and the duplicate the ERP holds', async () => {
    const report = await check(join(WRONG, 'duplicate-as-rejection.ts'));
    expect(failing(report)).toEqual(['import.lost-reply', 'import.duplicate-from-target']);
    expect(report.passed).toBe(false);
    expect(evidence(report, 'import.lost-reply')).toContain(
      'previouslyAttempted: true: import() -> threw PermanentImportError',
    );
    expect(evidence(report, 'import.lost-reply')).toContain(
      'wrong: a PermanentImportError after a lost result (the 409 trap) makes the consumer mark the invoice failed at the service',
    );
    // Both the result lost at the consumer and the reply lost at the ERP (its connection cut).
    expect(evidence(report, 'import.lost-reply')).toMatch(
      /its reply lost at the target: import\(\) -> threw \w*Error/,
    );
  });

  it('fails a fresh idempotency key per call: booked twice, answered imported twice', async () => {
    const report = await check(join(WRONG, 'imports-twice.ts'));
    expect(failing(report)).toEqual(['import.lost-reply', 'import.duplicate-from-target']);
    expect(evidence(report, 'import.duplicate-from-target')).toContain(
      "wrong: 'imported' again for a message the target holds",
    );
    expect(evidence(report, 'import.duplicate-from-target')).toMatch(
      /the target holds 2 records of message/,
    );
  });

  it('fails a forget() that removes the import', async () => {
    const report = await runImporterKit({ importer: join(WRONG, 'forget-removes-documents.ts') });
    expect(failing(report)).toEqual(['import.forget']);
    expect(evidence(report, 'import.forget')).toContain(
      'an event replayed later, a new instance: import() -> imported',
    );
  });
});
