/**
 * `npm run conformance` as a team certifying its consumer runs it: a process, options on the
 * command line, the reconciliation as a shell command, JSON on stdout, the exit code for CI.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceReport } from '../../src/conformance/report.ts';
import {
  type ConsumerUnderTest,
  CREDENTIAL,
  REJECTED_INVOICE_NO,
  startConsumerUnderTest,
} from '../support/conformance.ts';
import { TEST_SECRET } from '../support/consumer.ts';
import { freePort, runScript } from '../support/processes.ts';

const ROOT = join(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'scripts/conformance.ts');

let port: number;
let consumer: ConsumerUnderTest;

beforeAll(async () => {
  port = await freePort();
  consumer = await startConsumerUnderTest('ours', port);
});
afterAll(async () => {
  await consumer?.stop();
});

const run = (args: string[], env: Record<string, string> = {}) =>
  runScript(SCRIPT, { args, cwd: ROOT, env });

describe('npm run conformance', () => {
  it('passes against our consumer: exit 0 and a JSON report with every duty checked', async () => {
    const { code, output } = await run(
      [
        '--url',
        consumer.url,
        '--secret',
        consumer.secret,
        '--credential',
        CREDENTIAL,
        '--port',
        String(port),
        '--reject-invoice-no',
        REJECTED_INVOICE_NO,
        '--reconcile-command',
        `"${process.execPath}" scripts/reconcile.ts`,
        '--state-url',
        consumer.stateUrl,
        '--state-token',
        consumer.stateToken,
        '--json',
      ],
      {
        // The reconciliation command's configuration: the consumer's database and the simulator.
        DATABASE_URL: `sqlite:${join(consumer.dir, 'consumer.db')}`,
        DOCUMENTS_DIR: join(consumer.dir, 'documents'),
        SINK_JOURNAL_FILE: join(consumer.dir, 'status-journal.jsonl'),
        API_BASE_URL: `http://127.0.0.1:${port}`,
        API_TOKEN: 'sandbox-token',
        WEBHOOK_SECRETS: TEST_SECRET,
        LOG_LEVEL: 'silent',
      },
    );
    const report = JSON.parse(output) as ConformanceReport;
    expect(report.duties.filter((d) => d.result !== 'pass')).toEqual([]);
    expect(report.duties.find((d) => d.id === 'reconciliation')?.evidence.join('\n')).toContain(
      'reconcile: found=',
    );
    expect(code).toBe(0);
  }, 60_000);

  it('exits 1 when a duty fails, with the table naming it', async () => {
    const { code, output } = await run([
      '--url',
      consumer.url,
      '--secret',
      'whsec_not_the_consumers_secret',
      '--credential',
      CREDENTIAL,
      '--port',
      String(port),
      '--timeout-ms',
      '300',
      '--burst',
      '5',
    ]);
    expect(output).toMatch(/^FAIL {2}signature\.valid/m);
    expect(output).toMatch(/^n\/a {3}reconciliation/m);
    expect(output).toContain('NOT conformant');
    expect(code).toBe(1);
  }, 60_000);

  it('exits 1 when the consumer answers too slowly: answer.in-time fails with the slow answers', async () => {
    // Our consumer behind a gateway that passes each answer on 6 s late: reached, and too slow.
    const slowPort = await freePort();
    const slow = await startConsumerUnderTest('slow', slowPort);
    try {
      const { code, output } = await run([
        '--url',
        slow.url,
        '--secret',
        slow.secret,
        '--credential',
        CREDENTIAL,
        '--port',
        String(slowPort),
        '--burst',
        '5',
        '--timeout-ms',
        '10000',
      ]);
      expect(output).toMatch(/^FAIL {2}answer\.in-time/m);
      expect(output).toMatch(/^ +test event signed with the secret -> no answer within 5 s$/m);
      expect(output).not.toContain('could not reach the consumer');
      expect(code).toBe(1);
    } finally {
      await slow.stop();
    }
  }, 60_000);

  it('exits 2 when the consumer cannot be reached, saying so', async () => {
    const { code, output } = await run([
      '--url',
      `http://127.0.0.1:${await freePort()}/webhooks`,
      '--secret',
      'whsec_x',
      '--port',
      String(port),
    ]);
    expect(output).toContain('could not reach the consumer');
    expect(code).toBe(2);
  });

  it('exits 2 on bad usage, naming the option', async () => {
    const { code, output } = await run(['--url', consumer.url]);
    expect(output).toContain('--secret is required');
    expect(code).toBe(2);
  });
});
