/**
 * The default file importer killed with SIGKILL mid-write, again and again, as an OOM killer or
 * a crash would (file-import-loop.ts imports eight messages at a time, their documents held in
 * memory as the consumer hands ordinary invoices over). What a user would notice:
 *
 * - a reader of DOCUMENTS_DIR (an ERP polling it) never sees a message folder half-written:
 *   not while the imports run, not after a kill; a folder is there whole (its four files, each
 *   as its manifest says) or not at all;
 * - importing again completes every message a kill cut short, with the bytes meant for it.
 *
 * A power cut is fsync's part (each file, the staging folder, the shard folder), which a
 * process kill cannot show: the page cache outlives the process.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import {
  createFileImporter,
  documentFolder,
  type Manifest,
} from '../../src/consumer/importer/index.ts';
import { createTestProcesses, waitForOutput } from '../support/processes.ts';
import { testFolder } from '../support/test-folder.ts';
import { documentsOf, importCrashMessage, sha256 } from './support/crash-documents.ts';
import { FUZZ_SEED, seededRandom } from './support/fuzz.ts';

const LOOP = join(import.meta.dirname, 'support', 'file-import-loop.ts');
const KILLS = 6;
const FILES = ['core.xml', 'descriptor.json', 'manifest.json', 'transaction.json'];

const processes = createTestProcesses();
afterEach(() => processes.killAll());

/** Every message folder a reader sees now, each checked whole; their message ids. */
function visibleFolders(documentsDir: string): string[] {
  const inbound = join(documentsDir, 'inbound');
  if (!existsSync(inbound)) return [];
  const seen: string[] = [];
  for (const shard of readdirSync(inbound)) {
    for (const name of readdirSync(join(inbound, shard))) {
      // A staging folder is hidden: readers skip dot names, and it is never a message's folder.
      if (name.startsWith('.')) continue;
      expectWhole(join(inbound, shard, name), name);
      seen.push(name);
    }
  }
  return seen;
}

function expectWhole(folder: string, messageId: string): void {
  expect(readdirSync(folder).sort(), `${messageId}: a folder half-written`).toEqual(FILES);
  const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as Manifest;
  expect(manifest.messageId).toBe(messageId);
  for (const file of manifest.files) {
    const bytes = readFileSync(join(folder, file.name));
    expect({ name: file.name, size: bytes.length, sha256: sha256(bytes) }).toEqual({
      name: file.name,
      size: file.size,
      sha256: file.sha256,
    });
  }
  const { core, transaction } = documentsOf(Number(messageId.slice('crash-'.length)));
  expect(readFileSync(join(folder, 'core.xml')).equals(core)).toBe(true);
  expect(readFileSync(join(folder, 'transaction.json')).equals(transaction)).toBe(true);
}

it(`${KILLS} SIGKILLs mid-write: no message folder is ever seen half-written, and importing again completes each once`, async () => {
  const dir = testFolder('file-import-crashes-');
  const documentsDir = join(dir, 'documents');
  const random = seededRandom(FUZZ_SEED);
  let looks = 0;
  let lastSeen = 0;

  for (let kill = 0; kill < KILLS; kill++) {
    const loop = processes.start(LOOP, { args: [documentsDir], cwd: dir });
    await waitForOutput(loop, 'imported crash-', 15_000);
    // A reader polls the folders while the imports run, until the kill at a seeded moment.
    const killAt = Date.now() + 20 + Math.floor(random() * 300);
    while (Date.now() < killAt) {
      lastSeen = visibleFolders(documentsDir).length;
      looks += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
    loop.child.kill('SIGKILL');
    await loop.exited();
    lastSeen = visibleFolders(documentsDir).length;
  }
  expect(looks).toBeGreaterThan(KILLS);

  // What the kills cut short is imported now, once; what they did not is left as it is.
  const importer = createFileImporter({ documentsDir });
  const statuses = { imported: 0, already_imported: 0 };
  const last = lastSeen + 16;
  for (let n = 0; n < last; n++) {
    const result = await importCrashMessage(importer, n, true);
    if (result.status === 'not_booked') throw new Error('not_booked from the file importer');
    statuses[result.status] += 1;
    expect(result).toMatchObject({
      location: documentFolder(documentsDir, 'inbound', `crash-${n}`),
    });
  }
  expect(statuses.already_imported).toBeGreaterThanOrEqual(lastSeen);
  expect(visibleFolders(documentsDir).sort()).toEqual(
    Array.from({ length: last }, (_, n) => `crash-${n}`).sort(),
  );
}, 60_000);
