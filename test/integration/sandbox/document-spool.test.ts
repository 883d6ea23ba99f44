/**
 * Where fetched documents go on their way to the importer (api/read-document.ts): an ordinary
 * invoice's two documents are held in memory and written once, where they stay; only a
 * document over 1 MiB passes through the spool folder, DOCUMENTS_DIR/.incoming. Shown with that
 * folder unusable (a file in its place): an ordinary invoice is imported all the same, while a
 * large one is retried until the folder can be made, then imported whole.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { expect, it } from 'vitest';
import { documentFolder } from '../../../src/consumer/importer/index.ts';
import {
  eventually,
  SANDBOX_ADMIN_TOKEN,
  type Sandbox,
  startSandboxForTest,
} from '../../support/sandbox.ts';
import { testFolder } from '../../support/test-folder.ts';

const MIB = 1024 * 1024;
const FILES = ['core.xml', 'descriptor.json', 'manifest.json', 'transaction.json'];

const providerStatus = async (s: Sandbox, messageId: string) =>
  (await s.admin<{ sides: { inbound?: { status: string } } }>('GET', `/messages/${messageId}`))
    .sides.inbound?.status;

async function deliveryEvent(s: Sandbox, messageId: string) {
  const res = await request(`${s.consumer.url}/admin/events?limit=1000`, {
    headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` },
  });
  const { items } = (await res.body.json()) as {
    items: { messageId: string; action: string; attempts: number; lastError: string | null }[];
  };
  return items.find((e) => e.messageId === messageId && e.action === 'deliveryNotified');
}

it('an ordinary invoice never touches the spool folder; a document over 1 MiB goes through it', async () => {
  const documentsDir = join(testFolder('document-spool-'), 'documents');
  const spool = join(documentsDir, '.incoming');
  mkdirSync(documentsDir, { recursive: true });
  writeFileSync(spool, 'a file where the spool folder would be');
  const s = await startSandboxForTest({
    consumerEnv: { DOCUMENTS_DIR: documentsDir, WORKER_MAX_ATTEMPTS: '1000' },
  });

  const ordinary = await s.sendInboundInvoice();
  await eventually(async () => (await providerStatus(s, ordinary)) === 'delivered', 'delivered');
  expect(readdirSync(documentFolder(documentsDir, 'inbound', ordinary)).sort()).toEqual(FILES);

  const large = await s.sendInboundInvoice({ coreDocumentBytes: 2 * MIB });
  const refused = await eventually(async () => {
    const event = await deliveryEvent(s, large);
    return (event?.attempts ?? 0) >= 2 ? event : undefined;
  }, 'the large document retried while the spool folder cannot be made');
  expect(refused.lastError).toMatch(/\.incoming/);
  expect(await providerStatus(s, large)).toBe('pendingdelivery');

  rmSync(spool);
  await eventually(async () => (await providerStatus(s, large)) === 'delivered', 'delivered');
  const folder = documentFolder(documentsDir, 'inbound', large);
  expect(readdirSync(folder).sort()).toEqual(FILES);
  expect(statSync(join(folder, 'core.xml')).size).toBeGreaterThanOrEqual(2 * MIB);
  const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as {
    files: { name: string; size: number }[];
  };
  expect(manifest.files.find((f) => f.name === 'core.xml')?.size).toBe(
    statSync(join(folder, 'core.xml')).size,
  );
  // Moved into place: nothing left behind in the spool folder.
  expect(readdirSync(spool)).toEqual([]);
});
