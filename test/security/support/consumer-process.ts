/**
 * The consumer as a real process (`node src/main.ts`, Node 24 type stripping, no loader in
 * between), so /proc/<pid> is the process that holds the port. It listens on a free port
 * (PORT=0); the address is read from its "consumer listening" log line, not guessed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { childEnv } from '../../support/child-env.ts';
import { consumerFilesEnv } from '../../support/consumer-env.ts';
import { CONSUMER_MAIN } from '../../support/entry-points.ts';

/**
 * A consumer under test at its edges: verifying webhooks with `secret`, calling the messaging
 * API at `apiBaseUrl` (by default nowhere: nothing listens on port 9) with a test token.
 */
export function consumerUnderAttackEnv(
  secret: string,
  apiBaseUrl = 'http://127.0.0.1:9',
): Record<string, string> {
  return { WEBHOOK_SECRETS: secret, API_BASE_URL: apiBaseUrl, API_TOKEN: 'security-test-token' };
}

export interface ConsumerProcess {
  child: ChildProcess;
  pid: number;
  /** The temporary folder holding its database (`consumer.db`) and documents, unless `env` moved them. */
  dir: string;
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  /** The "consumer listening" log line, parsed. */
  listening: Record<string, unknown>;
  /** Every stdout and stderr line so far. */
  output(): string;
  /** SIGTERM, then waits for the exit; removes the temporary folder. */
  stop(): Promise<void>;
}

/** Starts `main` (default: this checkout's src/main.ts) with exactly `env` plus a temp folder. */
export async function startConsumerProcess(
  env: Record<string, string>,
  options: { main?: string } = {},
): Promise<ConsumerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'consumer-security-'));
  const child = spawn(process.execPath, [options.main ?? CONSUMER_MAIN], {
    cwd: dir,
    env: {
      ...childEnv(),
      PORT: '0',
      ...consumerFilesEnv(dir),
      // The address comes from an info line: a quieter level would leave this waiting.
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = once(child, 'exit');
  const listening = new Promise<Record<string, unknown>>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      for (const line of output.split('\n')) {
        if (!line.includes('"consumer listening"')) continue;
        child.stdout?.off('data', onData);
        child.stdout?.on('data', (more: Buffer) => {
          output += more;
        });
        resolve(JSON.parse(line) as Record<string, unknown>);
        return;
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    void exited.then(([code]) =>
      reject(new Error(`consumer exited with ${code} before listening:\n${output}`)),
    );
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const line = await listening;
    return {
      child,
      pid: child.pid as number,
      dir,
      url: String(line.url),
      listening: line,
      output: () => output,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Runs `main` to its end (a configuration error, say): exit code and all output. */
export async function runConsumerToExit(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'consumer-security-'));
  try {
    const child = spawn(process.execPath, [CONSUMER_MAIN], {
      cwd: dir,
      env: { ...childEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    const [code] = (await once(child, 'close')) as [number | null];
    return { code, output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Reads one value of the consumer's Prometheus text, on a connection of its own. */
export async function metric(baseUrl: string, name: string): Promise<number> {
  // reset: the connection closes after the answer instead of joining the count it reads.
  const res = await request(`${baseUrl}/metrics`, { reset: true });
  const text = await res.body.text();
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (match?.[1] === undefined) throw new Error(`no ${name} in /metrics`);
  return Number(match[1]);
}

/** Polls `check` until it is true; a condition, never a fixed sleep, and a clear failure. */
export async function waitUntil(
  check: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
