/**
 * The messages of file-import-loop.ts, `crash-0`, `crash-1`, ...: the same bytes whichever
 * process imports them, so a test can check a folder's files against what was meant, and one
 * way to import them. Every fifth core document is 256 KiB, so that a kill often lands inside
 * a write.
 */
import { createHash } from 'node:crypto';
import {
  type Importer,
  type ImportResult,
  memoryDocument,
} from '../../../src/consumer/importer/index.ts';
import { descriptorOf } from '../../support/descriptors.ts';

export function documentsOf(n: number): { core: Buffer; transaction: Buffer } {
  const size = n % 5 === 0 ? 256 * 1024 : 2000;
  return {
    core: Buffer.alloc(size, `<Invoice><ID>${n}</ID></Invoice>`),
    transaction: Buffer.from(JSON.stringify({ invoice: { invoiceNo: `INV-${n}` } })),
  };
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** `crash-<n>` handed to `importer` as the consumer hands an ordinary invoice: in memory. */
export function importCrashMessage(
  importer: Importer,
  n: number,
  previouslyAttempted: boolean,
): Promise<ImportResult> {
  const messageId = `crash-${n}`;
  const { core, transaction } = documentsOf(n);
  return importer.import({
    messageId,
    transfer: 'inbound',
    descriptor: descriptorOf({ uniqueId: messageId }),
    coreDocument: held('application/xml', core),
    transaction: held('application/json', transaction),
    previouslyAttempted,
    signal: new AbortController().signal,
  });
}

function held(contentType: string, bytes: Buffer) {
  return memoryDocument({ contentType, size: bytes.length, sha256: sha256(bytes), bytes }, () => {
    throw new Error('the file importer asked for a file');
  });
}
