/**
 * A process that imports inbound messages with the default file importer, eight at a time,
 * until it is killed: what a consumer's worker does to DOCUMENTS_DIR, without the rest. Run by
 * file-import-crashes.test.ts, which kills it with SIGKILL mid-write.
 *
 *   node test/reliability/support/file-import-loop.ts <documentsDir>
 *
 * Messages are `crash-0`, `crash-1`, ... from the first every time, so a restarted process
 * meets what its predecessor finished (already imported) and what it cut short. Each document
 * is held in memory, as the consumer hands an ordinary invoice over; every fifth core document
 * is 256 KiB, so a kill often lands inside a write. Prints `imported <messageId>` per import.
 */
import { createHash } from 'node:crypto';
import { createFileImporter, memoryDocument } from '../../../src/consumer/importer/index.ts';
import { descriptorOf } from '../../support/descriptors.ts';
import { documentsOf } from './crash-documents.ts';

const documentsDir = process.argv[2];
if (documentsDir === undefined) throw new Error('usage: file-import-loop.ts <documentsDir>');
const importer = createFileImporter({ documentsDir });

function held(contentType: string, bytes: Buffer) {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return memoryDocument({ contentType, size: bytes.length, sha256, bytes }, () => {
    throw new Error('the file importer asked for a file');
  });
}

let next = 0;
async function importLoop(): Promise<void> {
  for (;;) {
    const n = next++;
    const messageId = `crash-${n}`;
    const { core, transaction } = documentsOf(n);
    const result = await importer.import({
      messageId,
      transfer: 'inbound',
      descriptor: descriptorOf({ uniqueId: messageId }),
      coreDocument: held('application/xml', core),
      transaction: held('application/json', transaction),
      previouslyAttempted: false,
      signal: new AbortController().signal,
    });
    process.stdout.write(`${result.status} ${messageId}\n`);
  }
}

await Promise.all(Array.from({ length: 8 }, importLoop));
