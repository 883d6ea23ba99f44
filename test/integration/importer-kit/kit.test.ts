/**
 * The kit itself: with a target controller every case but forget() is checked against the
 * example HTTP importer, each with its evidence; an importer that cannot be loaded is a
 * KitConfigError naming every problem, as `npm start` names them; a session runs one case at
 * a time and removes its temporary folder.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CASE_IDS,
  formatTable,
  KitConfigError,
  runImporterKit,
  startImporterKit,
} from '../../../src/importer-kit/index.ts';
import { setUpErpStandin } from './erp-standin-target.ts';

const standin = setUpErpStandin();

describe('runImporterKit', () => {
  it('checks every case but forget() on erp-http with a target, each with evidence', async () => {
    const report = await runImporterKit({
      importer: 'erp-http',
      ...standin.kitOptions(),
    });
    expect(report.cases.map((c) => c.id)).toEqual(CASE_IDS);
    expect(report.cases.map((c) => [c.id, c.result])).toEqual(
      CASE_IDS.map((id) => [id, id === 'import.forget' ? 'not checked' : 'pass']),
    );
    expect(report.passed).toBe(true);
    expect(report.importer).toMatchObject({ name: 'erp-http', spec: 'erp-http' });
    const evidence = (id: string) => report.cases.find((c) => c.id === id)?.evidence.join('\n');
    expect(evidence('import.lost-reply')).toMatch(
      /its reply lost at the target: import\(\) -> threw/,
    );
    expect(evidence('import.transient')).toContain('the ERP answered 503');
    expect(evidence('import.deadline')).toMatch(
      /the target hanging, the signal aborting 200 ms in: import\(\) -> threw \w+/,
    );
    expect(evidence('import.large-document')).toMatch(/a core document of \d{8} bytes/);
    expect(evidence('import.document-types')).toContain('(MessageLevelResponse)');
    // Every message the kit made was booked once, never twice.
    const counts = new Map<string, number>();
    for (const d of standin.erp.documents())
      counts.set(d.externalId, (counts.get(d.externalId) ?? 0) + 1);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(formatTable(report)).toMatch(
      /^PASS {2}import\.lost-reply +a call whose result was lost/m,
    );
  });

  it('runs a case of a session on its own; close() removes its DOCUMENTS_DIR', async () => {
    const session = await startImporterKit({ importer: 'file' });
    const documentsDir = /written to (\S+)\/inbound\//.exec(session.importer.describe)?.[1];
    expect(documentsDir).toMatch(/importer-kit-/);
    try {
      const once = await session.run('import.once');
      expect(once.result).toBe('pass');
      expect(once.evidence.join('\n')).toContain(`imported at ${documentsDir}/inbound/`);
      expect(existsSync(documentsDir as string)).toBe(true);
    } finally {
      await session.close();
    }
    expect(existsSync(documentsDir as string)).toBe(false);
  });

  it('throws KitConfigError naming each missing setting, never a secret', async () => {
    const error = await runImporterKit({
      importer: 'erp-http',
      env: { ERP_BASE_URL: 'ftp://erp.example.com' },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KitConfigError);
    expect((error as KitConfigError).problems).toEqual([
      'ERP_BASE_URL: must be an http(s) URL (importer erp-http) (got "ftp://erp.example.com")',
      'ERP_TOKEN is required (importer erp-http)',
    ]);
  });

  it('names an importer that does not exist, with the ones there are', async () => {
    const error = await runImporterKit({ importer: 'no-such-erp' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KitConfigError);
    expect(String((error as Error).message)).toMatch(/no-such-erp: no module at .*erp-http, file/);
  });
});
