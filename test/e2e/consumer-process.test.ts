/** The consumer as an operator runs it: a process, its environment, its exit code. */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { CONSUMER_MAIN } from '../support/entry-points.ts';
import { createTestProcesses, freePort, waitForOutput } from '../support/processes.ts';
import { testFolder } from '../support/test-folder.ts';
import { buildEnvelope, signedRequest } from '../support/webhooks.ts';

const processes = createTestProcesses();
afterEach(() => processes.killAll());

/** main.ts in a folder of its own: no .env file, only the environment the test gives. */
function run(env: Record<string, string>) {
  return processes.start(CONSUMER_MAIN, { cwd: testFolder('consumer-e2e-'), env });
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
    const consumer = run({
      PORT: String(port),
      WEBHOOK_SECRETS: 'whsec_e2e',
      API_BASE_URL: 'http://127.0.0.1:9',
      API_TOKEN: 't',
      DATABASE_URL: 'sqlite:./data/c.db',
    });
    const { child, exited, output } = consumer;
    await waitForOutput(consumer, 'consumer listening', 10_000);

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
