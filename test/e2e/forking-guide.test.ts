/**
 * docs/forking.md, followed as a forker follows it, on a fresh copy of the repository (a fork):
 * every shell block the guide marks is run as written, in order, in the fork's folder. Blocks
 * marked `background` are started and left running (the ERP stand-in, `npm run dev`) once they
 * print what the marker names. Only the ports differ (free ones, substituted for the guide's
 * 4000, 3000 and 4100, as a user's .env would set them). The comment lines of a block are the
 * output it must print (`...` stands for anything). A guide that drifts from the code fails
 * here; its image steps are run by test/container/forked-importer.test.ts.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { userShellEnv } from '../support/child-env.ts';
import { type ProcessGroup, startProcessGroup } from '../support/child-output.ts';
import { forkOfThisRepository, REPOSITORY_ROOT } from '../support/fork.ts';
import { freePort } from '../support/processes.ts';

const GUIDE = join(REPOSITORY_ROOT, 'docs/forking.md');

interface GuideBlock {
  script: string;
  /** Set for a block left running: the text it prints once ready. */
  background?: string;
}

/** The marked `sh` blocks of a guide, in order. */
function guideBlocks(markdown: string): GuideBlock[] {
  const blocks: GuideBlock[] = [];
  const marker = /<!-- guide: (run|background "([^"]+)") -->\s*```sh\n([\s\S]*?)```/g;
  for (const match of markdown.matchAll(marker)) {
    const script = match[3] ?? '';
    blocks.push(match[2] === undefined ? { script } : { script, background: match[2] });
  }
  return blocks;
}

/** What a block says it prints: its `# ` comment lines, `...` matching anything. */
function expectedOutput(script: string): RegExp[] {
  return [...script.matchAll(/^# (.+)$/gm)].map(
    (m) =>
      new RegExp(
        (m[1] ?? '')
          .split('...')
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*'),
      ),
  );
}

const background: ProcessGroup[] = [];
let fork: string | undefined;
afterAll(async () => {
  for (const running of background.splice(0)) await running.stop();
  if (fork !== undefined) rmSync(fork, { recursive: true, force: true });
});

describe('docs/forking.md', () => {
  it('parses its marked blocks', () => {
    const blocks = guideBlocks(readFileSync(GUIDE, 'utf8'));
    expect(blocks.filter((b) => b.background === undefined).length).toBeGreaterThanOrEqual(5);
    expect(blocks.filter((b) => b.background !== undefined).length).toBe(2);
  });

  it('takes a fork from one new importer file to its imports, as written', async () => {
    fork = forkOfThisRepository();
    const ports = { provider: await freePort(), consumer: await freePort(), erp: await freePort() };
    const env = {
      ...userShellEnv(fork),
      PROVIDER_PORT: String(ports.provider),
      PORT: String(ports.consumer),
      ERP_STANDIN_PORT: String(ports.erp),
    };
    const withPorts = (script: string) =>
      script
        .replaceAll('127.0.0.1:4000', `127.0.0.1:${ports.provider}`)
        .replaceAll('127.0.0.1:3000', `127.0.0.1:${ports.consumer}`)
        .replaceAll('127.0.0.1:4100', `127.0.0.1:${ports.erp}`);

    for (const block of guideBlocks(readFileSync(GUIDE, 'utf8'))) {
      const script = withPorts(block.script);
      // A group of its own: a background block's commands are stopped with it.
      const running = startProcessGroup('bash', ['-euo', 'pipefail', '-c', script], {
        cwd: fork,
        env,
      });
      if (block.background !== undefined) {
        background.push(running);
        const deadline = Date.now() + 60_000;
        while (!running.output().includes(block.background)) {
          if (running.child.exitCode !== null || Date.now() > deadline) {
            throw new Error(
              `${block.script}\nnever printed ${block.background}:\n${running.output()}`,
            );
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        continue;
      }
      const code = await running.exited();
      const output = running.output();
      expect(code, `${block.script}\n${output}`).toBe(0);
      // As a terminal shows it: without colour sequences.
      const shown = output.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
      for (const pattern of expectedOutput(script)) {
        expect(shown, `${block.script}\n${shown.slice(-3000)}`).toMatch(pattern);
      }
    }
  }, 600_000);
});
