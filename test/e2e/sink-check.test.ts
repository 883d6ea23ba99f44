/**
 * `npm run sink:check` as a forker runs it: a process, the sink named on the command line (or
 * SINK_MODULE), its settings in the environment, the exit code for CI. It runs from a folder of
 * its own, so no .env of the working tree takes part, and the journal's default file lands
 * there.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SinkKitReport } from '../../src/sink-kit/report.ts';
import { type ErpStandin, startErpStandin } from '../support/erp-standin.ts';
import { runScript } from '../support/processes.ts';

const ROOT = join(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'scripts/sink-check.ts');

/** A sink that takes an ERP's 409 for a notice id it holds as a refusal: never delivered. */
const REFUSES_REDELIVERY = `import { defineStatusSink, z } from ${JSON.stringify(join(ROOT, 'src/consumer/sink/index.ts'))};
const held = new Set<string>();
export default defineStatusSink({
  settings: z.object({}),
  describe: () => 'an ERP whose 409 for a known id is taken as a refusal',
  create: () => ({
    async deliver(notice) {
      if (held.has(notice.id)) throw new Error('the ERP answered 409: ' + notice.id + ' exists');
      held.add(notice.id);
    },
  }),
});
`;

let erp: ErpStandin;
let cwd: string;
beforeAll(async () => {
  erp = await startErpStandin({});
  cwd = mkdtempSync(join(tmpdir(), 'sink-check-e2e-'));
});
afterAll(async () => {
  await erp?.close();
  if (cwd !== undefined) rmSync(cwd, { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string>) => runScript(SCRIPT, { args, cwd, env });

describe('npm run sink:check', () => {
  it('passes the journal: exit 0, a PASS line for each checked case, n/a without a target', async () => {
    const { code, output } = await run(['journal'], {});
    expect(output).toMatch(/^PASS {2}sink\.once-in-order /m);
    expect(output).toMatch(/^PASS {2}sink\.redelivered /m);
    // No target controller on the command line: said, not failed.
    expect(output).toMatch(/^n\/a {3}sink\.outage +.*\n +not checked: needs a target controller/m);
    expect(output).toMatch(/^n\/a {3}sink\.restart /m);
    // The journal takes batches (deliverMany), so that case runs too.
    expect(output).toMatch(/^PASS {2}sink\.batch /m);
    expect(output).toContain('Every checked case holds.');
    expect(code).toBe(0);
    // The journal wrote where its settings say: by default ./data/ of the working directory.
    const lines = readFileSync(join(cwd, 'data/status-journal.jsonl'), 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
  }, 60_000);

  it('takes SINK_MODULE when no sink is named, and prints JSON with --json', async () => {
    const { code, output } = await run(['--json'], {
      SINK_MODULE: 'erp-http',
      SINK_ERP_URL: erp.url,
      SINK_ERP_TOKEN: erp.token,
    });
    const report = JSON.parse(output) as SinkKitReport;
    expect(report.sink).toMatchObject({ name: 'erp-http', spec: 'erp-http' });
    expect(report.passed).toBe(true);
    expect(report.cases.map((c) => [c.id, c.result])).toEqual([
      ['sink.once-in-order', 'pass'],
      ['sink.redelivered', 'pass'],
      ['sink.outage', 'not checked'],
      ['sink.restart', 'not checked'],
      // erp-http posts one notice a call: no deliverMany to check.
      ['sink.batch', 'not checked'],
    ]);
    // The stand-in took each notice once, the one handed over twice included.
    const ids = erp.statusChanges().map((change) => change.notice.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    expect(code).toBe(0);
  }, 60_000);

  it('exits 1 for a sink that refuses a notice handed over again, named by path, naming the case', async () => {
    const module = join(cwd, 'refuses-redelivery.ts');
    writeFileSync(module, REFUSES_REDELIVERY);
    const { code, output } = await run([module], {});
    expect(output).toMatch(/^PASS {2}sink\.once-in-order /m);
    expect(output).toMatch(/^FAIL {2}sink\.redelivered /m);
    expect(output).toContain(
      "wrong: a new instance's deliver() threw for a notice an instance took before",
    );
    expect(output).toContain('The sink breaks its contract');
    expect(code).toBe(1);
  }, 60_000);

  it('exits 2 naming a sink that is not there, before starting anything', async () => {
    const { code, output } = await run(['my-erp'], {});
    expect(output).toMatch(
      /SINK_MODULE my-erp: no module at .*src\/sinks\/my-erp\.ts; a name is a file of src\/sinks\/ \(there: erp-http, journal/,
    );
    expect(output).not.toContain('PASS');
    expect(code).toBe(2);
  });

  it('exits 2 naming a missing or bad setting, never its secret', async () => {
    const missing = await run(['erp-http'], { SINK_ERP_TOKEN: 'sink-check-secret-token' });
    expect(missing.output).toContain('SINK_ERP_URL is required (sink erp-http)');
    expect(missing.output).not.toContain('sink-check-secret-token');
    expect(missing.code).toBe(2);
    const bad = await run(['erp-http'], { SINK_ERP_URL: 'ftp://erp.test' });
    expect(bad.output).toContain(
      'SINK_ERP_URL: must be an http(s) URL (sink erp-http) (got "ftp://erp.test")',
    );
    expect(bad.code).toBe(2);
  });

  it('exits 2 on bad usage, naming the option', async () => {
    const { code, output } = await run(['journal', '--jsn'], {});
    expect(output).toContain("Unknown option '--jsn'");
    expect(output).toContain('Usage: npm run sink:check');
    expect(code).toBe(2);
  });
});
