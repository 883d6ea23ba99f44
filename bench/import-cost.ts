/**
 * The default file importer alone, on the documents a drain imported: each message's core
 * document, transaction JSON and descriptor are read back from the drain's documents folder
 * and imported again, into a fresh folder, by createFileImporter in this process, 32 at a time
 * (WORKER_CONCURRENCY's default), held in memory as the worker hands ordinary documents over.
 * The CPU this process spends doing it (every thread: libuv's pool writes and flushes the
 * files), per import, is the part of the drain's CPU per invoice the default importer takes:
 * what the rest of the consumer has left under a target ratio to the provider's CPU.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createFileImporter,
  MANIFEST_FILE,
  type Manifest,
} from '../src/consumer/importer/file-importer.ts';
import { memoryDocument } from '../src/consumer/importer/import-documents.ts';
import type { ImportInput } from '../src/consumer/importer/importer.ts';
import type { MessageDescriptor } from '../src/protocol/index.ts';

export interface ImportCost {
  imports: number;
  /** CPU time of this process (all threads) per import, in ms. */
  cpuMsPerImport: number;
}

/** Imports at once: WORKER_CONCURRENCY's default, as many as the worker runs. */
export const IMPORT_LANES = 32;

/** Imports again up to `limit` inbound messages of `documentsDir` into `into`. */
export async function measureFileImport(
  documentsDir: string,
  into: string,
  limit: number,
): Promise<ImportCost> {
  const inputs = await readImported(join(documentsDir, 'inbound'), limit);
  if (inputs.length === 0) throw new Error(`no imported message under ${documentsDir}`);
  const importer = createFileImporter({ documentsDir: into });
  const signal = new AbortController().signal;
  let next = 0;
  const lane = async () => {
    for (let input = inputs[next++]; input !== undefined; input = inputs[next++]) {
      const result = await importer.import({ ...input, signal });
      if (result.status !== 'imported') throw new Error(`${input.messageId}: ${result.status}`);
    }
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: IMPORT_LANES }, lane));
  const { user, system } = process.cpuUsage(before);
  return { imports: inputs.length, cpuMsPerImport: (user + system) / 1000 / inputs.length };
}

async function readImported(
  inbound: string,
  limit: number,
): Promise<Array<Omit<ImportInput, 'signal'>>> {
  const inputs: Array<Omit<ImportInput, 'signal'>> = [];
  for (const shard of await readdir(inbound)) {
    for (const messageId of await readdir(join(inbound, shard))) {
      if (inputs.length >= limit) return inputs;
      const folder = join(inbound, shard, messageId);
      const manifest = JSON.parse(await readFile(join(folder, MANIFEST_FILE), 'utf8')) as Manifest;
      const document = async (name: string) => {
        const file = manifest.files.find((f) => f.name === name);
        if (file === undefined) throw new Error(`${folder}: no ${name} in its manifest`);
        const bytes = await readFile(join(folder, name));
        return memoryDocument({ ...file, bytes }, () => {
          throw new Error('an ordinary document is written from memory, never spilled');
        });
      };
      const core = manifest.files.find((f) => f.name.startsWith('core.'));
      if (core === undefined) throw new Error(`${folder}: no core document in its manifest`);
      inputs.push({
        messageId,
        transfer: 'inbound',
        descriptor: JSON.parse(
          await readFile(join(folder, 'descriptor.json'), 'utf8'),
        ) as MessageDescriptor,
        coreDocument: await document(core.name),
        transaction: await document('transaction.json'),
        previouslyAttempted: false,
      });
    }
  }
  return inputs;
}
