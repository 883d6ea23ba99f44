/** `npm run provider` as a real process (`node scripts/provider.ts`) on a free port. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { childEnv } from '../../support/child-env.ts';

const PROVIDER_SCRIPT = join(import.meta.dirname, '../../../scripts/provider.ts');

export interface ProviderProcess {
  child: ChildProcess;
  /** As the banner prints it: `127.0.0.1:40123`. */
  address: string;
  port: number;
  /** http://127.0.0.1:<port>, reachable from this machine whatever the bind address. */
  url: string;
  output(): string;
  stop(): Promise<void>;
}

export async function startProviderProcess(env: Record<string, string>): Promise<ProviderProcess> {
  const child = spawn(process.execPath, [PROVIDER_SCRIPT], {
    env: { ...childEnv(), PROVIDER_PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = once(child, 'exit');
  const address = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /listening on (\S+:\d+)/.exec(output);
      if (match?.[1] !== undefined) resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    void exited.then(([code]) => reject(new Error(`provider exited with ${code}:\n${output}`)));
  });
  const port = Number(address.slice(address.lastIndexOf(':') + 1));
  return {
    child,
    address,
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
