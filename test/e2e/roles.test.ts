/**
 * ROLE splits the consumer in two processes on one database: `ingress` answers webhooks and
 * stores them, `worker` imports and acknowledges them. Run here as a user would, on one SQLite
 * file, against the embedded provider.
 */
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandboxConsumerEnv } from '../support/consumer-env.ts';
import { createTestProcesses, freePort } from '../support/processes.ts';
import { providerAdmin } from '../support/provider-admin.ts';
import {
  publishedDeliveryNotified,
  type RecordingProvider,
  startRecordingProvider,
} from '../support/recording-provider.ts';
import { testFolder } from '../support/test-folder.ts';
import { postSigned } from '../support/webhooks.ts';

const SECRET = 'whsec_roles_test_secret';
const PARTY = '0192:999999999';

let dir: string;
let provider: RecordingProvider;
const processes = createTestProcesses();

beforeEach(async () => {
  dir = testFolder('roles-');
  provider = await startRecordingProvider();
});
afterEach(async () => {
  await processes.killAll();
  await provider.close();
});

const admin = providerAdmin(() => provider.url);

async function start(role: string) {
  const port = await freePort();
  const script = await processes.startConsumer({
    cwd: dir,
    port,
    env: {
      ROLE: role,
      ...sandboxConsumerEnv({ secret: SECRET, apiBaseUrl: provider.url, dir }),
      LOG_LEVEL: 'warn',
    },
  });
  return { script, base: `http://127.0.0.1:${port}` };
}

describe('ROLE', () => {
  it('an ingress process stores, a worker process on the same file imports and acknowledges', async () => {
    const { messageId } = await admin<{ messageId: string }>('POST', '/messages/inbound', {});
    const ingress = await start('ingress');
    const worker = await start('worker');

    // The worker serves no webhooks: only the operations routes.
    const refused = await request(`${worker.base}/webhooks`, { method: 'POST', body: '{}' });
    await refused.body.text();
    expect(refused.statusCode).toBe(404);

    const notified = await publishedDeliveryNotified(provider, messageId, PARTY);
    expect(await postSigned(`${ingress.base}/webhooks`, notified, { secret: SECRET })).toBe(204);

    const status = () => provider.provider.model.messages.get(messageId).sides.inbound?.status;
    for (let i = 0; i < 400 && status() !== 'delivered'; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(status()).toBe('delivered');
    // Each process is ready with what it runs: the ingress has no worker of its own.
    const ready = async (base: string) => (await (await fetch(`${base}/readyz`)).json()) as unknown;
    expect(await ready(ingress.base)).toEqual({ status: 'ready', checks: ['store'] });
    expect(await ready(worker.base)).toEqual({ status: 'ready', checks: ['store', 'worker'] });
  });
});
