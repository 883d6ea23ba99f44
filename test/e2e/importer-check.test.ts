/**
 * `npm run importer:check` as a forker runs it: a process, the importer named on the command
 * line (or IMPORTER_MODULE), its settings in the environment, the exit code for CI. It runs
 * from a folder of its own, so no .env of the working tree takes part.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KitReport } from '../../src/importer-kit/report.ts';
import { type ErpStandin, startErpStandin } from '../support/erp-standin.ts';
import { runScript } from '../support/processes.ts';

const ROOT = join(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'scripts/importer-check.ts');
const REFUSED = 'REFUSED-INVOICE-1';

let erp: ErpStandin;
let cwd: string;
beforeAll(async () => {
  erp = await startErpStandin({ rejectInvoiceNos: [REFUSED] });
  cwd = mkdtempSync(join(tmpdir(), 'importer-check-e2e-'));
});
afterAll(async () => {
  await erp?.close();
  if (cwd !== undefined) rmSync(cwd, { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string>) => runScript(SCRIPT, { args, cwd, env });

describe('npm run importer:check', () => {
  it('passes erp-http against the ERP stand-in: exit 0, a PASS line for each checked case', async () => {
    const { code, output } = await run(['erp-http', '--reject-invoice-no', REFUSED], {
      ERP_BASE_URL: erp.url,
      ERP_TOKEN: erp.token,
    });
    for (const id of [
      'import.once',
      'import.lost-reply',
      'import.duplicate-from-target',
      'import.permanent',
      'import.deadline',
      'import.large-document',
      'import.document-types',
      'import.concurrent',
    ]) {
      expect(output).toMatch(new RegExp(`^PASS {2}${id.replace('.', '\\.')} `, 'm'));
    }
    // No target controller on the command line: said, not failed.
    expect(output).toMatch(
      /^n\/a {3}import\.transient +.*\n +not checked: needs a target controller/m,
    );
    expect(output).toContain('Every checked case holds.');
    expect(code).toBe(0);
  }, 60_000);

  it('exits 1 for an importer that treats the 409 as a refusal, named by path, naming the case', async () => {
    const { code, output } = await run(
      ['test/support/wrong-importers/duplicate-as-rejection.ts', '--reject-invoice-no', REFUSED],
      { ERP_BASE_URL: erp.url, ERP_TOKEN: erp.token },
    );
    expect(output).toMatch(/^FAIL {2}import\.lost-reply /m);
    expect(output).toMatch(/^FAIL {2}import\.duplicate-from-target /m);
    expect(output).toContain('wrong: a PermanentImportError after a lost result (the 409 trap)');
    expect(output).toContain('The importer breaks its contract');
    expect(code).toBe(1);
  }, 60_000);

  it('exits 2 naming the missing setting, before starting anything', async () => {
    const { code, output } = await run(['erp-http'], { ERP_BASE_URL: erp.url });
    expect(output).toContain('ERP_TOKEN is required (importer erp-http)');
    expect(output).not.toContain('PASS');
    expect(code).toBe(2);
  });

  it('takes IMPORTER_MODULE when no importer is named, and prints JSON with --json', async () => {
    const { code, output } = await run(['--json'], { IMPORTER_MODULE: 'file' });
    const report = JSON.parse(output) as KitReport;
    expect(report.importer.name).toBe('file');
    expect(report.passed).toBe(true);
    expect(report.cases.find((c) => c.id === 'import.lost-reply')?.result).toBe('pass');
    // The file importer has no forget(); no target controller on the command line.
    expect(report.cases.find((c) => c.id === 'import.forget')?.result).toBe('not checked');
    expect(code).toBe(0);
  }, 60_000);

  it('exits 2 on bad usage, naming the option', async () => {
    const { code, output } = await run(['file', '--reject-invoice'], {});
    expect(output).toContain("Unknown option '--reject-invoice'");
    expect(output).toContain('Usage: npm run importer:check');
    expect(code).toBe(2);
  });
});
