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
import { createFileImporter } from '../../../src/consumer/importer/index.ts';
import { importCrashMessage } from './crash-documents.ts';

const documentsDir = process.argv[2];
if (documentsDir === undefined) throw new Error('usage: file-import-loop.ts <documentsDir>');
const importer = createFileImporter({ documentsDir });

let next = 0;
async function importLoop(): Promise<void> {
  for (;;) {
    const n = next++;
    const result = await importCrashMessage(importer, n, false);
    process.stdout.write(`${result.status} crash-${n}\n`);
  }
}

await Promise.all(Array.from({ length: 8 }, importLoop));
