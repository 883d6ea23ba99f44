/** `npm run submit-invoice` against the provider simulator, as a user tries the API. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningProvider, startProvider } from '../../src/provider/provider.ts';
import { freePort, runScript } from '../support/processes.ts';

const SCRIPT = join(import.meta.dirname, '../../scripts/submit-invoice.ts');
const EXAMPLE = join(import.meta.dirname, '../../scripts/examples/invoice.json');
let provider: RunningProvider;
let dir: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'submit-e2e-'));
  provider = await startProvider({ logger: pino({ level: 'silent' }) });
});
afterEach(async () => {
  await provider.close();
  rmSync(dir, { recursive: true, force: true });
});

const submit = (args: string[], token = 'sandbox-token') =>
  runScript(SCRIPT, { args, cwd: dir, env: { API_BASE_URL: provider.url, API_TOKEN: token } });

describe('npm run submit-invoice', () => {
  it('submits the example invoice and prints its message id', async () => {
    const { code, output } = await submit([EXAMPLE]);
    expect(code).toBe(0);
    const messageId = /messageId=(\S+) status=received/.exec(output)?.[1];
    expect(messageId).toBeDefined();
    const message = provider.provider.model.messages.get(messageId as string);
    expect(message.documentNo).toBe('INV-1001');
  });

  it('says what went wrong: a refused token, a missing file, no arguments', async () => {
    const refused = await submit([EXAMPLE], 'wrong');
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('answered 401');
    const missing = await submit([join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.output).toContain('nope.json');
    expect((await submit([])).output).toContain('usage: npm run submit-invoice');
  });
});

describe('against the sandbox with no API settings (README: "against npm run dev")', () => {
  it('uses the sandbox of PROVIDER_PORT and says so', async () => {
    const port = provider.url.slice(provider.url.lastIndexOf(':') + 1);
    const { code, output } = await runScript(SCRIPT, {
      args: [EXAMPLE],
      cwd: dir,
      env: { PROVIDER_PORT: port },
    });
    expect(output).toContain(`using the local sandbox at http://127.0.0.1:${port}`);
    expect(code).toBe(0);
    expect(output).toMatch(/messageId=\S+ status=received/);
  });

  it('asks whether the sandbox runs when nothing answers', async () => {
    const { code, output } = await runScript(SCRIPT, {
      args: [EXAMPLE],
      cwd: dir,
      env: { PROVIDER_PORT: String(await freePort()), API_TIMEOUT_MS: '500' },
    });
    expect(code).toBe(1);
    expect(output).toContain('Is the sandbox running? Start it with `npm run dev`');
  });
});
