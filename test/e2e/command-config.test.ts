/**
 * Every command that imports reads the core's settings and the importer's together: one report
 * of every problem, exit 2, no stack. A production start without a chosen importer is refused
 * saying how to choose, and a taken port names the variable to change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, runScript, startScript, waitForOutput } from '../support/processes.ts';

const ROOT = join(import.meta.dirname, '../..');
const COMMANDS = {
  start: join(ROOT, 'src/main.ts'),
  dev: join(ROOT, 'scripts/dev.ts'),
  reconcile: join(ROOT, 'scripts/reconcile.ts'),
} as const;

const dirs: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const server of servers.splice(0)) await new Promise((r) => server.close(r));
});

/** The command in a folder of its own: no .env, only the environment given. */
function run(command: keyof typeof COMMANDS, env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'command-config-'));
  dirs.push(dir);
  return runScript(COMMANDS[command], { cwd: dir, env });
}

const base = {
  WEBHOOK_SECRETS: 'whsec_command_config_test',
  API_BASE_URL: 'http://127.0.0.1:9',
  API_TOKEN: 'sandbox-token',
};

/** Output lines that belong to a stack trace. */
const stackLines = (output: string) => output.split('\n').filter((l) => /^\s+at /.test(l));

describe('configuration problems of the core and of the importer', () => {
  it.each(['start', 'dev', 'reconcile'] as const)(
    '%s reports both in one list and exits 2',
    async (command) => {
      const { code, output } = await run(command, {
        ...base,
        WORKER_CONCURRENCY: 'lots',
        IMPORTER_MODULE: 'erp-http',
        ERP_BASE_URL: 'ftp://erp.example',
      });
      expect(code).toBe(2);
      expect(output).toContain('Invalid configuration:');
      expect(output).toContain('  - WORKER_CONCURRENCY must be an integer');
      expect(output).toContain('  - ERP_BASE_URL: must be an http(s) URL (importer erp-http)');
      expect(output).toContain('  - ERP_TOKEN is required (importer erp-http)');
      expect(output.match(/Invalid configuration:/g)).toHaveLength(1);
      expect(stackLines(output)).toEqual([]);
    },
  );

  it.each(['start', 'reconcile'] as const)(
    '%s in production refuses to run until an importer is chosen',
    async (command) => {
      const { code, output } = await run(command, { ...base, NODE_ENV: 'production' });
      expect(code).toBe(2);
      expect(output).toContain('IMPORTER_MODULE is required when NODE_ENV=production');
      expect(output).toContain('IMPORTER_MODULE=file');
    },
  );

  it('start in production with the file importer chosen by name runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'command-config-'));
    dirs.push(dir);
    const consumer = startScript(COMMANDS.start, {
      cwd: dir,
      env: {
        ...base,
        NODE_ENV: 'production',
        IMPORTER_MODULE: 'file',
        PORT: String(await freePort()),
      },
    });
    try {
      await waitForOutput(consumer, 'consumer listening');
      expect(consumer.output()).toContain('"importer":"file"');
      expect(consumer.output()).toContain('importer ready');
    } finally {
      consumer.child.kill('SIGTERM');
      await consumer.exited();
    }
  });
});

describe('a taken port', () => {
  async function occupy(): Promise<number> {
    const port = await freePort();
    const server = createServer().listen(port, '0.0.0.0');
    servers.push(server);
    await new Promise((r) => server.once('listening', r));
    return port;
  }

  it('start names PORT and exits 2 without a stack', async () => {
    const port = await occupy();
    const { code, output } = await run('start', { ...base, PORT: String(port) });
    expect(code).toBe(2);
    expect(output).toContain(`PORT ${port} is taken`);
    expect(output).toContain('set PORT to a free port');
    expect(stackLines(output)).toEqual([]);
  });

  it('a second npm run dev names PROVIDER_PORT, or PORT, and exits 2 without a stack', async () => {
    const providerPort = await occupy();
    const first = await run('dev', {
      PROVIDER_PORT: String(providerPort),
      PORT: String(await freePort()),
    });
    expect(first.code).toBe(2);
    expect(first.output).toContain(`PROVIDER_PORT ${providerPort} is taken`);
    expect(stackLines(first.output)).toEqual([]);

    const consumerPort = await occupy();
    const second = await run('dev', {
      PROVIDER_PORT: String(await freePort()),
      PORT: String(consumerPort),
    });
    expect(second.code).toBe(2);
    expect(second.output).toContain(`PORT ${consumerPort} is taken`);
    expect(stackLines(second.output)).toEqual([]);
  });
});
