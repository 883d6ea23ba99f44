/**
 * A fork's image, built as docs/forking.md says: the repository plus one new importer file
 * (src/importers/my-erp.ts, the guide's first step copies the example HTTP importer), then the
 * guide's `docker build`. The image refuses to start until IMPORTER_MODULE names an importer, and with
 * IMPORTER_MODULE=my-erp it books an inbound invoice in the ERP (the stand-in, on this host)
 * and shows the ERP's document number in the admin view.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ErpStandin, startErpStandin } from '../support/erp-standin.ts';
import { blockAfter, forkOfThisRepository, REPOSITORY_ROOT } from '../support/fork.ts';
import { describeWithEngine, hostAddressOn } from './support/engine.ts';
import { json, waitFor } from './support/http.ts';
import { buildImages } from './support/images.ts';
import {
  consumerEnvBesideProvider,
  type SandboxNetwork,
  startSandboxNetwork,
} from './support/provider-container.ts';

const run = promisify(execFile);
const FORK_IMAGE = 'my-consumer';
const GUIDE_TEXT = readFileSync(join(REPOSITORY_ROOT, 'docs/forking.md'), 'utf8');
const SECRET = `whsec_${randomBytes(16).toString('hex')}`;
const ADMIN_TOKEN = randomBytes(32).toString('hex');

/**
 * The fork of docs/forking.md: the repository, plus the guide's first step (the example
 * importer copied to src/importers/my-erp.ts).
 */
function forkWithImporter(): string {
  const fork = forkOfThisRepository();
  execFileSync('bash', ['-euo', 'pipefail', '-c', blockAfter(GUIDE_TEXT, '<!-- guide: run -->')], {
    cwd: fork,
  });
  return fork;
}

describeWithEngine('a fork with its own importer, as an image', () => {
  let context: string;
  let erp: ErpStandin;
  let sandbox: SandboxNetwork;
  let consumer: StartedTestContainer | undefined;

  beforeAll(async () => {
    // The repository's image first: its layers (npm ci above all) make the fork's build quick.
    await buildImages();
    context = forkWithImporter();
    // The guide's build command as written, with what this machine needs added (host
    // networking for npm, and CI's stand-in base image: no registry here).
    const build = blockAfter(GUIDE_TEXT, '<!-- e2e: test/container/forked-importer.test.ts -->');
    expect(build.trim()).toBe(`docker build -t ${FORK_IMAGE} .`);
    const args = process.env.CONSUMER_BASE_IMAGE
      ? ['--build-arg', `BASE_IMAGE=${process.env.CONSUMER_BASE_IMAGE}`]
      : [];
    await run('docker', ['build', '--network', 'host', ...args, '-t', FORK_IMAGE, '.'], {
      cwd: context,
      maxBuffer: 64 * 1024 * 1024,
    });
    // The ERP runs on this host; containers reach it at their network's gateway address.
    erp = await startErpStandin({ host: '0.0.0.0' });
    // The sandbox's admin API without a token: it is reached on this test network only.
    sandbox = await startSandboxNetwork({ webhookSecret: SECRET });
  }, 15 * 60_000);

  afterAll(async () => {
    await consumer?.stop();
    await sandbox?.stop();
    await erp?.close();
    if (context !== undefined) rmSync(context, { recursive: true, force: true });
  });

  const baseEnv = consumerEnvBesideProvider({ webhookSecret: SECRET, adminToken: ADMIN_TOKEN });

  it('refuses to start without IMPORTER_MODULE, saying how to choose one', async () => {
    let output = '';
    const refused = new GenericContainer(FORK_IMAGE)
      .withEnvironment(baseEnv)
      .withLogConsumer((stream) => stream.on('data', (chunk) => (output += chunk)))
      .withWaitStrategy(Wait.forOneShotStartup())
      .start();
    await expect(refused).rejects.toThrow();
    expect(output).toContain('IMPORTER_MODULE is required when NODE_ENV=production');
    expect(output).toContain('IMPORTER_MODULE=file');
  });

  it('books an inbound invoice in the ERP through the fork importer, and shows where', async () => {
    const gateway = await hostAddressOn(sandbox.network);
    const port = new URL(erp.url).port;
    consumer = await sandbox
      .consumer(FORK_IMAGE, {
        ...baseEnv,
        IMPORTER_MODULE: 'my-erp',
        ERP_BASE_URL: `http://${gateway}:${port}`,
        ERP_TOKEN: erp.token,
      })
      .start();
    const started = consumer;
    const logs = await streamText(await started.logs({ tail: 200 }), 'importer ready');
    expect(logs).toContain('"importer":"my-erp"');

    const providerUrl = sandbox.providerUrl();
    const { messageId } = await json<{ messageId: string }>(
      `${providerUrl}/admin/messages/inbound`,
      { method: 'POST', body: {} },
    );
    await waitFor('the provider shows the invoice delivered', async () => {
      const state = await json<{ sides: { inbound: { status: string } } }>(
        `${providerUrl}/admin/messages/${messageId}`,
      );
      return state.sides.inbound.status === 'delivered';
    });
    const booked = erp.documents().filter((d) => d.externalId === messageId);
    expect(booked).toHaveLength(1);
    const view = await json<{ inbound: { importLocation: string | null } }>(
      `http://${started.getHost()}:${started.getMappedPort(3001)}/admin/messages/${messageId}`,
      { token: ADMIN_TOKEN },
    );
    expect(view.inbound.importLocation).toBe(booked[0]?.documentNo);
  });
});

/** The log stream's text up to the first line containing `until`. */
async function streamText(stream: NodeJS.ReadableStream, until: string): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += String(chunk);
    if (text.includes(until)) break;
  }
  return text;
}
