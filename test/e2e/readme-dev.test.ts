/**
 * The first ten minutes (issue 9): `npm run dev` as a process, and every shell block the README
 * marks as run against it, as written. Only the ports differ (free ones, told to both through
 * PROVIDER_PORT and PORT, as a user's .env would), the status journal is the one in this test's
 * data folder (npm run dev's ./data/status-journal.jsonl, kept away from a developer's), and
 * the signing secret is the one the banner printed, as the README says to take it. A README that drifts from the code fails here.
 */
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { documentFolder } from '../../src/consumer/importer/file-importer.ts';
import { userShellEnv } from '../support/child-env.ts';
import { type ProcessGroup, spawnWithOutput, startProcessGroup } from '../support/child-output.ts';
import { consumerFilesEnv } from '../support/consumer-env.ts';
import { freePort } from '../support/processes.ts';
import { itIfAvailable } from '../support/requirement.ts';

const ROOT = join(import.meta.dirname, '../..');
const MARKER = '<!-- e2e: test/e2e/readme-dev.test.ts';

/** The `sh` blocks that follow a marker in the README. */
function markedBlocks(readme: string): string[] {
  const blocks: string[] = [];
  let at = readme.indexOf(MARKER);
  while (at !== -1) {
    const match = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
    if (match?.[1] !== undefined) blocks.push(match[1]);
    at = readme.indexOf(MARKER, at + MARKER.length);
  }
  return blocks;
}

/** What each command prints when it works, by a piece of the command. */
const EXPECTED: [command: string, output: RegExp][] = [
  ['/admin/messages/inbound', /\{"messageId":"[0-9a-f-]{36}"\}/],
  [
    '/admin/submissions',
    /\{"invoiceNo":"INV-2001","state":"submitted","messageId":"[0-9a-f-]{36}","resolvedBy":"reply"/,
  ],
  ['npm run submit-invoice', /submitted: messageId=[0-9a-f-]{36} status=received/],
  ['/admin/events', /"eventId":/],
  ['/admin/sink', /"pending":\d+/],
  ['/test-event', /"statusCode":204,/],
  [
    'submission:INV-2001 data/status-journal.jsonl',
    /\{"id":"submission:INV-2001","kind":"submission","invoiceNo":"INV-2001","messageId":"[0-9a-f-]{36}"/,
  ],
];

/** `npm run dev` in its own process group (npm, sh, node), so stopping it stops them all. */
function startDev(command: string[], env: Record<string, string>): ProcessGroup {
  const [file = 'npm', ...args] = command;
  return startProcessGroup(file, args, { cwd: ROOT, env });
}

async function waitFor(
  dev: ProcessGroup,
  pattern: RegExp,
  what: string,
  ms = 30_000,
): Promise<RegExpExecArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const match = pattern.exec(dev.output());
    if (match) return match;
    if (dev.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`npm run dev never printed ${what}:\n${dev.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function runBlock(script: string, env: Record<string, string>) {
  const block = spawnWithOutput('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env });
  const [code] = await once(block.child, 'exit');
  return { code: code as number, output: block.output() };
}

let dev: ProcessGroup | undefined;
let dir: string | undefined;
afterEach(async () => {
  await dev?.stop();
  dev = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The environment of a user's shell: nothing of the sandbox set but the ports. */
async function userEnvironment() {
  dir = mkdtempSync(join(tmpdir(), 'readme-dev-'));
  const ports = { provider: await freePort(), consumer: await freePort() };
  const env = {
    ...userShellEnv(dir),
    PROVIDER_PORT: String(ports.provider),
    PORT: String(ports.consumer),
    // A developer's own .env must not change what this test sees.
    DOTENV_CONFIG_PATH: join(dir, 'no.env'),
  };
  // Where `npm run dev` keeps its data, away from a developer's ./data.
  const devEnv = {
    ...env,
    ...consumerFilesEnv(dir, `sqlite:${join(dir, 'dev.db')}`),
    // One demo invoice, the one sent at start ('0' would send none).
    DEMO_INTERVAL_SECONDS: '3600',
  };
  return { env, devEnv, ports, dir };
}

describe('npm run dev and the README', () => {
  it("prints the console's address, logs JSON when not on a terminal, and runs the README's commands as written", async () => {
    const { env, devEnv, ports, dir: data } = await userEnvironment();
    dev = startDev(['npm', 'run', 'dev'], devEnv);
    const banner = await waitFor(dev, /signing secret\s+(whsec_\S+)/, 'the banner');
    const secret = banner[1] ?? '';
    const consoleUrl = `http://127.0.0.1:${ports.provider}/`;
    expect(dev.output()).toContain(`Open the console: ${consoleUrl}`);
    const page = await fetch(consoleUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Sandbox console</title>');

    const blocks = markedBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const block of blocks) {
      const script = block
        .replaceAll('127.0.0.1:4000', `127.0.0.1:${ports.provider}`)
        .replaceAll('127.0.0.1:3000', `127.0.0.1:${ports.consumer}`)
        .replaceAll('data/status-journal.jsonl', devEnv.SINK_JOURNAL_FILE)
        .replaceAll("secret='whsec_...'", `secret='${secret}'`);
      const { code, output } = await runBlock(script, env);
      expect(code, `${block}\n${output}`).toBe(0);
      // The answers the README shows in its comments, then what each command prints.
      const checks = [...block.matchAll(/# (HTTP\/1\.1 \d{3}[^\n]*)/g)].map((m) => m[1] ?? '');
      for (const status of checks) expect(output, block).toContain(status);
      const expected = EXPECTED.filter(([command]) => block.includes(command));
      for (const [, pattern] of expected) expect(output, block).toMatch(pattern);
      expect(
        checks.length + expected.length,
        `nothing checks this block:\n${block}`,
      ).toBeGreaterThan(0);
    }

    // The demo invoice arrives where the README says, once imported.
    const demo = await waitFor(dev, /demo: invoice (\S+) sent/, 'the demo invoice');
    const manifest = join(
      documentFolder(join(data, 'documents'), 'inbound', demo[1] ?? ''),
      'manifest.json',
    );
    const deadline = Date.now() + 15_000;
    while (!existsSync(manifest) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(existsSync(manifest)).toBe(true);

    // Not a terminal: JSON lines, no colours.
    const output = dev.output();
    expect(output).not.toContain(`${String.fromCharCode(27)}[`);
    const logLines = output.split('\n').filter((line) => line.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) expect(JSON.parse(line)).toHaveProperty('level');
  }, 90_000);

  // `script` (util-linux) gives the process a terminal, as a user's shell does.
  itIfAvailable(
    'prints coloured, readable log lines on a terminal',
    existsSync('/usr/bin/script')
      ? undefined
      : 'no /usr/bin/script (util-linux) to give it a terminal',
    async () => {
      const { devEnv } = await userEnvironment();
      dev = startDev(['script', '-qfec', 'npm run dev', '/dev/null'], { ...devEnv, TERM: 'xterm' });
      await waitFor(dev, /consumer listening/, 'its first log line');
      await waitFor(dev, /Open the console: http:\/\/127\.0\.0\.1:\d+\//, 'the banner');
      const output = dev.output();
      // An ANSI colour sequence: ESC [ <n> m.
      expect(output).toMatch(new RegExp(`${String.fromCharCode(27)}\\[\\d+m`));
      expect(output).toMatch(/INFO.*consumer listening/);
      expect(output).not.toContain('{"level":');
    },
    60_000,
  );
});
