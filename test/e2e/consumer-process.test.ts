/** The consumer as an operator runs it: a process, its environment, its exit code. */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startScript } from '../support/processes.ts';
import { buildEnvelope, signedRequest } from '../support/webhooks.ts';

const MAIN = join(import.meta.dirname, '../../src/main.ts');
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** main.ts in a folder of its own: no .env file, only the environment the test gives. */
function run(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'consumer-e2e-'));
  dirs.push(dir);
  const running = startScript(MAIN, { cwd: dir, env });
  children.push(running.child);
  return running;
}

async function waitFor(check: () => boolean, what: string) {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('consumer process', () => {
  it('exits non-zero naming each bad variable', async () => {
    const { exited, output } = run({ PORT: 'eighty', API_TOKEN: 't' });
    const code = await exited();
    expect(code).not.toBe(0);
    expect(output()).toContain('PORT must be an integer');
    expect(output()).toContain('WEBHOOK_SECRETS is required');
    expect(output()).toContain('API_BASE_URL is required');
  });

  it('serves signed webhooks and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const { child, exited, output } = run({
      PORT: String(port),
      WEBHOOK_SECRETS: 'whsec_e2e',
      API_BASE_URL: 'http://127.0.0.1:9',
      API_TOKEN: 't',
      DATABASE_URL: 'sqlite:./data/c.db',
    });
    await waitFor(() => output().includes('consumer listening'), 'the listener');

    const url = `http://127.0.0.1:${port}/webhooks`;
    const req = signedRequest(buildEnvelope(), { secrets: ['whsec_e2e'] });
    const signed = await request(url, { method: 'POST', body: req.body, headers: req.headers });
    expect(signed.statusCode).toBe(204);
    const unsigned = await request(url, { method: 'POST', body: req.body });
    expect(unsigned.statusCode).toBe(401);
    await unsigned.body.text();

    child.kill('SIGTERM');
    const code = await exited();
    expect(code).toBe(0);
    expect(output()).toContain('consumer stopped');
  });
});
