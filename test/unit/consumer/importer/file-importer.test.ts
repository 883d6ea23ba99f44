import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  coreFileName,
  createFileImporter,
  documentFolder,
  MANIFEST_FILE,
  type Manifest,
} from '../../../../src/consumer/importer/file-importer.ts';
import {
  fileDocument,
  type ImportDocument,
  type ImportInput,
  memoryDocument,
  PermanentImportError,
} from '../../../../src/consumer/importer/index.ts';
import type { MessageDescriptor } from '../../../../src/protocol/index.ts';
import { descriptorOf } from '../../../support/descriptors.ts';

const MESSAGE_ID = '3f2b8c1e-0a4d-4e6f-9b7a-1c2d3e4f5a6b';
const CORE = Buffer.from('<?xml version="1.0"?>\n<Invoice><ID>INV-1</ID><Note>é</Note></Invoice>');
const TRANSACTION = Buffer.from('{"invoice": {"invoiceNo": "INV-1"},  "spacing": "kept"}');

function descriptor(): MessageDescriptor {
  return descriptorOf({ uniqueId: MESSAGE_ID });
}

let spooled = 0;
/** A fetched document as the consumer hands it over: a file in the spool folder. */
function document(contentType: string, bytes: Buffer): ImportDocument {
  const spool = join(workDir, 'documents', '.incoming');
  mkdirSync(spool, { recursive: true });
  spooled += 1;
  const path = join(spool, `${spooled}.part`);
  writeFileSync(path, bytes);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return fileDocument({ contentType, path, size: bytes.length, sha256 });
}

/**
 * An ordinary document as the consumer hands it over: its bytes in memory. `spill` is what an
 * importer reading `path` gets; by default such a read fails the test.
 */
function heldDocument(
  contentType: string,
  bytes: Buffer,
  spill: () => string = () => {
    throw new Error('the file importer asked for a file of a document held in memory');
  },
): ImportDocument {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return memoryDocument({ contentType, size: bytes.length, sha256, bytes }, spill);
}

/** A valid input; each test breaks one field. */
function input(overrides: Partial<ImportInput> = {}): ImportInput {
  return {
    messageId: MESSAGE_ID,
    transfer: 'inbound',
    descriptor: descriptor(),
    // Made only when not given: each is a file of the spool folder.
    coreDocument: overrides.coreDocument ?? document('application/xml', CORE),
    transaction: overrides.transaction ?? document('application/json', TRANSACTION),
    previouslyAttempted: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

let workDir: string;
let documentsDir: string;
let messageDir: string;

beforeEach(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'file-importer-'));
  documentsDir = join(workDir, 'documents');
  messageDir = documentFolder(documentsDir, 'inbound', MESSAGE_ID);
});

afterEach(async () => {
  await rm(workDir, { recursive: true, force: true });
});

async function permanent(promise: Promise<unknown>): Promise<PermanentImportError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PermanentImportError);
  return error as PermanentImportError;
}

describe('file importer', () => {
  it('writes the documents with their exact bytes and a manifest', async () => {
    const importer = createFileImporter({ documentsDir });

    const result = await importer.import(input());

    expect(result).toEqual({ status: 'imported', location: messageDir });
    expect((await readdir(messageDir)).sort()).toEqual([
      'core.xml',
      'descriptor.json',
      'manifest.json',
      'transaction.json',
    ]);
    expect(await readFile(join(messageDir, 'core.xml'))).toEqual(CORE);
    expect(await readFile(join(messageDir, 'transaction.json'))).toEqual(TRANSACTION);
    expect(JSON.parse(await readFile(join(messageDir, 'descriptor.json'), 'utf8'))).toEqual(
      descriptor(),
    );

    const manifest = JSON.parse(
      await readFile(join(messageDir, 'manifest.json'), 'utf8'),
    ) as Manifest;
    expect(manifest).toMatchObject({ messageId: MESSAGE_ID, transfer: 'inbound' });
    expect(Number.isNaN(Date.parse(manifest.importedAt))).toBe(false);
    const core = manifest.files.find((file) => file.name === 'core.xml');
    expect(core).toEqual({
      name: 'core.xml',
      contentType: 'application/xml',
      size: CORE.length,
      sha256: createHash('sha256').update(CORE).digest('hex'),
    });
    expect(manifest.files.map((file) => file.name)).toEqual([
      'core.xml',
      'transaction.json',
      'descriptor.json',
    ]);
  });

  it('writes documents held in memory where they stay, with no file of their own first', async () => {
    const importer = createFileImporter({ documentsDir });

    const result = await importer.import(
      input({
        coreDocument: heldDocument('application/xml', CORE),
        transaction: heldDocument('application/json', TRANSACTION),
      }),
    );

    expect(result).toEqual({ status: 'imported', location: messageDir });
    expect(await readFile(join(messageDir, 'core.xml'))).toEqual(CORE);
    expect(await readFile(join(messageDir, 'transaction.json'))).toEqual(TRANSACTION);
    const manifest = JSON.parse(
      await readFile(join(messageDir, MANIFEST_FILE), 'utf8'),
    ) as Manifest;
    expect(manifest.files.find((file) => file.name === 'transaction.json')).toEqual({
      name: 'transaction.json',
      contentType: 'application/json',
      size: TRANSACTION.length,
      sha256: createHash('sha256').update(TRANSACTION).digest('hex'),
    });
    // Nothing in the spool folder, nor anywhere but the message's folder.
    expect(await readdir(documentsDir)).toEqual(['inbound']);
    expect(await readdir(dirname(messageDir))).toEqual([MESSAGE_ID]);
  });

  it('rejects held transaction data that is not JSON, from the bytes in hand', async () => {
    const error = await permanent(
      createFileImporter({ documentsDir }).import(
        input({ transaction: heldDocument('application/json', Buffer.from('{"a":')) }),
      ),
    );

    expect(error.reason).toMatch(/not valid JSON/);
    await expect(stat(messageDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('answers already_imported the second time and leaves the files untouched', async () => {
    const importer = createFileImporter({ documentsDir });
    await importer.import(input());
    const before = await mtimes(messageDir);

    const again = await importer.import(
      input({ coreDocument: document('application/xml', Buffer.from('<other/>')) }),
    );

    expect(again).toEqual({ status: 'already_imported', location: messageDir });
    expect(await mtimes(messageDir)).toEqual(before);
    expect(await readFile(join(messageDir, 'core.xml'))).toEqual(CORE);
  });

  it('recognises an import done by an earlier process (a fresh importer)', async () => {
    await createFileImporter({ documentsDir }).import(input());

    const result = await createFileImporter({ documentsDir }).import(input());

    expect(result.status).toBe('already_imported');
  });

  it('imports once when ten imports of the same message run at the same time', async () => {
    const importer = createFileImporter({ documentsDir });

    const results = await Promise.all(Array.from({ length: 10 }, () => importer.import(input())));

    const statuses = results.map((result) => result.status);
    expect(statuses.filter((s) => s === 'imported')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'already_imported')).toHaveLength(9);
    expect(await readFile(join(messageDir, 'core.xml'))).toEqual(CORE);
    expect(await readFile(join(messageDir, 'transaction.json'))).toEqual(TRANSACTION);
    expect((await readdir(messageDir)).filter((name) => name.startsWith('.'))).toEqual([]);
    expect(await readdir(dirname(messageDir))).toEqual([MESSAGE_ID]);
  });

  it('two writers of one message (two processes) never fail and leave one whole folder', async () => {
    // Each importer stands for another process: nothing in memory is shared.
    const importers = Array.from({ length: 6 }, () => createFileImporter({ documentsDir }));
    for (let round = 0; round < 5; round++) {
      const id = `${MESSAGE_ID.slice(0, -1)}${round}`;
      const results = await Promise.all(
        importers.map((importer) => importer.import(input({ messageId: id }))),
      );
      expect(results.filter((r) => r.status === 'imported')).toHaveLength(1);
      const dir = documentFolder(documentsDir, 'inbound', id);
      expect((await readdir(dir)).sort()).toEqual([
        'core.xml',
        'descriptor.json',
        'manifest.json',
        'transaction.json',
      ]);
    }
    for (let round = 0; round < 5; round++) {
      const shard = dirname(
        documentFolder(documentsDir, 'inbound', `${MESSAGE_ID.slice(0, -1)}${round}`),
      );
      expect((await readdir(shard)).filter((n) => n.startsWith('.'))).toEqual([]);
    }
  });

  it('spreads messages over 256 shard folders, and finds one an older version imported unsharded', async () => {
    const shards = new Set(
      Array.from({ length: 2000 }, (_, i) =>
        dirname(documentFolder(documentsDir, 'inbound', `message-${i}`)),
      ),
    );
    expect(shards.size).toBe(256);

    const legacy = join(documentsDir, 'inbound', MESSAGE_ID);
    await mkdir(legacy, { recursive: true });
    await writeFile(join(legacy, MANIFEST_FILE), '{}');
    const result = await createFileImporter({ documentsDir }).import(input());
    expect(result).toEqual({ status: 'already_imported', location: legacy });
    await expect(stat(messageDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('makes the documents folder again when it was removed while running', async () => {
    const importer = createFileImporter({ documentsDir });
    await importer.import(input());
    await rm(documentsDir, { recursive: true, force: true });

    const again = await importer.import(input({ messageId: `${MESSAGE_ID.slice(0, -1)}9` }));

    expect(again.status).toBe('imported');
  });

  it('stops when its signal aborts and leaves no folder behind', async () => {
    const controller = new AbortController();
    controller.abort(new Error('deadline'));
    const importer = createFileImporter({ documentsDir });

    await expect(importer.import(input({ signal: controller.signal }))).rejects.toThrow('deadline');

    expect(await readdir(dirname(messageDir))).toEqual([]);
    expect((await importer.import(input())).status).toBe('imported');
  });

  it('keeps the inbound and outbound side of a self-sent message apart', async () => {
    const importer = createFileImporter({ documentsDir });

    const inbound = await importer.import(input());
    const outbound = await importer.import(input({ transfer: 'outbound' }));

    expect(inbound.status).toBe('imported');
    expect(outbound).toEqual({
      status: 'imported',
      location: documentFolder(documentsDir, 'outbound', MESSAGE_ID),
    });
  });

  it('rejects transaction data that is not JSON as permanent', async () => {
    const importer = createFileImporter({ documentsDir });

    const error = await permanent(
      importer.import(input({ transaction: document('application/json', Buffer.from('{"a":')) })),
    );

    expect(error.reason).toMatch(/not valid JSON/);
    await expect(stat(messageDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('rejects an empty core document as permanent', async () => {
    const importer = createFileImporter({ documentsDir });

    const error = await permanent(
      importer.import(input({ coreDocument: document('application/xml', Buffer.alloc(0)) })),
    );

    expect(error.reason).toMatch(/core document is empty/);
  });

  it.each(['..', '.', '../escape', '../../etc', 'a/b', 'a\\b', '.hidden', '', 'nul\u0000byte'])(
    'rejects the messageId %j and writes nothing',
    async (messageId) => {
      const importer = createFileImporter({ documentsDir });

      const error = await permanent(importer.import(input({ messageId })));

      expect(error.reason).toMatch(/not a safe file name/);
      expect(await readdir(documentsDir)).toEqual(['.incoming']);
    },
  );

  it('replaces a folder an earlier version left half-written, and removes dead staging', async () => {
    // What a crash of the previous layout (files written in place) left behind.
    await mkdir(messageDir, { recursive: true });
    await writeFile(join(messageDir, 'core.xml'), '<Invoice><ID>INV-1');
    await writeFile(join(messageDir, '.transaction.json.tmp-0b1c'), '{"inv');
    // A staging folder of a writer that died two hours ago.
    const dead = join(dirname(messageDir), `.staging-${MESSAGE_ID}-dead`);
    await mkdir(dead);
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(dead, twoHoursAgo, twoHoursAgo);

    const result = await createFileImporter({ documentsDir }).import(input());
    expect(await readdir(dirname(messageDir))).toEqual([MESSAGE_ID]);

    expect(result.status).toBe('imported');
    expect(await readFile(join(messageDir, 'core.xml'))).toEqual(CORE);
    expect(await readFile(join(messageDir, 'transaction.json'))).toEqual(TRANSACTION);
    expect((await readdir(messageDir)).sort()).toEqual([
      'core.xml',
      'descriptor.json',
      'manifest.json',
      'transaction.json',
    ]);
  });

  it('reports a disk that cannot be written as a transient error, not a permanent one', async () => {
    // Tests run as root, where chmod does not stop writes; a path under a regular file fails
    // with ENOTDIR whoever runs it.
    const file = join(workDir, 'not-a-directory');
    await writeFile(file, 'x');
    const importer = createFileImporter({ documentsDir: join(file, 'documents') });

    const error = await importer.import(input()).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );

    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(PermanentImportError);
    expect(error).toMatchObject({ code: 'ENOTDIR' });
  });

  it('lets a later import proceed after one failed', async () => {
    const importer = createFileImporter({ documentsDir });
    await permanent(importer.import(input({ coreDocument: document('x/y', Buffer.alloc(0)) })));

    expect((await importer.import(input())).status).toBe('imported');
  });
});

describe('coreFileName', () => {
  it('names the core document by its content type', () => {
    expect(coreFileName('application/xml')).toBe('core.xml');
    expect(coreFileName('text/xml; charset=utf-8')).toBe('core.xml');
    expect(coreFileName('application/vnd.oasis.ubl+xml')).toBe('core.xml');
    expect(coreFileName('application/json')).toBe('core.json');
    expect(coreFileName('application/PDF')).toBe('core.pdf');
    expect(coreFileName('text/plain')).toBe('core.bin');
    expect(coreFileName('')).toBe('core.bin');
  });
});

async function mtimes(dir: string): Promise<Record<string, number>> {
  const names = await readdir(dir);
  const entries = await Promise.all(
    names.map(async (name) => [name, (await stat(join(dir, name))).mtimeMs] as const),
  );
  return Object.fromEntries(entries);
}
