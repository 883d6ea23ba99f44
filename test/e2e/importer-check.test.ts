/**
 * `npm run importer:check` as a forker runs it: a process, the importer named on the command
 * line (or IMPORTER_MODULE), its settings in the environment, the exit code for CI; with
 * `--target <module>`, a controller of its target, so that every case runs. It runs from a
 * folder of its own, so no .env of the working tree takes part.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KitReport } from '../../src/importer-kit/report.ts';
import { type ErpStandin, startErpStandin } from '../support/erp-standin.ts';
import { runScript } from '../support/processes.ts';

const ROOT = join(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'scripts/importer-check.ts');
const REFUSED = 'REFUSED-INVOICE-1';
/** The example target module: a stand-in of its own, controlled through its faults. */
const STANDIN_TARGET = 'test/support/importer-targets/erp-standin.ts';

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

  it('runs every case with --target: the target down, hanging, a reply lost at it, its records counted', async () => {
    // No ERP settings in the environment: the target module points the importer at its own
    // stand-in (importerEnv).
    const { code, output } = await run(
      ['erp-http', '--reject-invoice-no', REFUSED, '--target', STANDIN_TARGET],
      {},
    );
    expect(output).toContain(`target ${STANDIN_TARGET}`);
    for (const id of [
      'import.once',
      'import.lost-reply',
      'import.duplicate-from-target',
      'import.permanent',
      'import.transient',
      'import.deadline',
      'import.large-document',
      'import.document-types',
      'import.concurrent',
    ]) {
      expect(output).toMatch(new RegExp(`^PASS {2}${id.replace('.', '\\.')} `, 'm'));
    }
    expect(output).toMatch(/message \S+, the target down: import\(\) -> threw ErpError/);
    expect(output).toMatch(
      /the target hanging, the signal aborting 200 ms in: import\(\) -> threw/,
    );
    expect(output).toMatch(/its reply lost at the target: import\(\) -> threw/);
    expect(output).toMatch(/the target holds 1 record of message/);
    expect(output).not.toContain('needs a target controller');
    expect(output).toContain('Cases: 9 pass, 0 fail, 1 not checked. Every checked case holds.');
    expect(code).toBe(0);
  }, 90_000);

  it('exits 1 with --target for an importer that makes an outage a refusal, naming import.transient', async () => {
    const { code, output } = await run(
      ['test/support/wrong-importers/misbehaving.ts', '--target', STANDIN_TARGET, '--json'],
      { WRONG_IMPORTER_MODE: 'transient-as-permanent' },
    );
    const report = JSON.parse(output) as KitReport;
    expect(report.target).toBe(STANDIN_TARGET);
    const transient = report.cases.find((c) => c.id === 'import.transient');
    expect(transient?.result).toBe('fail');
    expect(transient?.evidence.join('\n')).toContain(
      'wrong: a PermanentImportError while the target is down makes the consumer mark the invoice failed',
    );
    expect(code).toBe(1);
  }, 90_000);

  it('exits 2 naming a target module that is missing, or whose export is not a controller', async () => {
    const missing = await run(['file', '--target', 'test/support/no-such-target.ts'], {});
    expect(missing.output).toContain(
      'The target controller cannot be loaded:\n  - --target test/support/no-such-target.ts: no module at',
    );
    expect(missing.output).not.toContain('PASS');
    expect(missing.code).toBe(2);

    const wrong = join(cwd, 'wrong-target.mjs');
    writeFileSync(wrong, 'export default { outage: true, outtage() {}, holds: () => 1 };\n');
    const { code, output } = await run(['file', '--target', wrong], {});
    expect(output).toContain(`--target ${wrong}: outage must be a function (got boolean)`);
    expect(output).toContain(`--target ${wrong}: unknown member outtage`);
    expect(output).not.toContain('PASS');
    expect(code).toBe(2);
  });

  it('exits 2 on bad usage, naming the option', async () => {
    const { code, output } = await run(['file', '--reject-invoice'], {});
    expect(output).toContain("Unknown option '--reject-invoice'");
    expect(output).toContain('Usage: npm run importer:check');
    expect(code).toBe(2);
  });
});
