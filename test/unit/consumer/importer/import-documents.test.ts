/**
 * The documents an importer is handed: every accessor of the contract (importer.ts,
 * ImportDocument) works for a document held in memory as for one in a file, so an importer
 * written when every document was a file keeps working.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  fetchedImportDocument,
  heldBytes,
} from '../../../../src/consumer/importer/import-documents.ts';
import {
  fileDocument,
  type ImportDocument,
  memoryDocument,
} from '../../../../src/consumer/importer/index.ts';

const XML = Buffer.from('<?xml version="1.0"?>\n<Invoice><Note>é</Note></Invoice>');
const SHA256 = createHash('sha256').update(XML).digest('hex');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'import-documents-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A held document whose spill writes a file of `dir`, counting the writes. */
function held() {
  const spills: string[] = [];
  const document = memoryDocument(
    { contentType: 'application/xml', size: XML.length, sha256: SHA256, bytes: XML },
    () => {
      const path = join(dir, `spill-${spills.length}.part`);
      writeFileSync(path, XML);
      spills.push(path);
      return path;
    },
  );
  return { document, spills };
}

function inFile(): ImportDocument {
  const path = join(dir, 'document.part');
  writeFileSync(path, XML);
  return fileDocument({ contentType: 'application/xml', path, size: XML.length, sha256: SHA256 });
}

describe('documents handed to an importer', () => {
  it.each([
    ['held in memory', () => held().document],
    ['in a file', inFile],
  ])('%s: bytes(), stream() and path all give the bytes exactly', async (_kind, make) => {
    const document = make();

    expect(document).toMatchObject({
      contentType: 'application/xml',
      size: XML.length,
      sha256: SHA256,
    });
    expect(await document.bytes()).toEqual(XML);
    expect(await text(document.stream())).toBe(XML.toString('utf8'));
    expect(readFileSync(document.path)).toEqual(XML);
  });

  it('writes a held document to a file only when an importer reads its path, and once', async () => {
    const { document, spills } = held();

    await document.bytes();
    await text(document.stream());
    expect(spills).toEqual([]);

    const path = document.path;
    expect(document.path).toBe(path);
    expect(spills).toEqual([path]);
  });

  it('gives each bytes() call a copy of its own: an importer may change it', async () => {
    const { document } = held();

    (await document.bytes()).fill(0);

    expect(await document.bytes()).toEqual(XML);
    expect(heldBytes(document)).toEqual(XML);
  });

  it('makes a fetched document held in memory, or in its file, as the API client kept it', () => {
    const file = join(dir, 'fetched.part');
    writeFileSync(file, XML);
    const fetched = { contentType: 'application/xml', size: XML.length, sha256: SHA256 };
    const kept = fetchedImportDocument({ ...fetched, bytes: XML, file: () => file });
    const spooled = fetchedImportDocument({ ...fetched, bytes: undefined, file: () => file });

    expect(heldBytes(kept)).toBe(XML);
    expect(heldBytes(spooled)).toBeUndefined();
    expect(spooled.path).toBe(file);
  });
});
