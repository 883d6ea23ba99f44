/**
 * The journal sink (SINK_MODULE=journal, the default) on a real file: one JSON line per notice,
 * in order, on disk before deliver() resolves; a batch in one write and one fsync; a notice already at the end of the file skipped
 * after a restart; a line cut short by a crash tolerated; the file and its folders private, and
 * U+2028/U+2029 escaped.
 */
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { StatusChangeNotice } from '../../../../src/consumer/store/status-notice.ts';
import journal, { createJournalSink, JOURNAL_TAIL_BYTES } from '../../../../src/sinks/journal.ts';

const dir = mkdtempSync(join(tmpdir(), 'journal-sink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const logger = pino({ level: 'silent' });
let files = 0;
const newFile = () => join(dir, `run-${++files}`, 'nested', 'status-journal.jsonl');

function notice(id: string, overrides: Partial<StatusChangeNotice> = {}): StatusChangeNotice {
  return {
    id,
    messageId: `msg-${id}`,
    transfer: 'inbound',
    kind: 'lifecycle',
    formerValue: null,
    newValue: 'Delivered',
    occurredAt: '2026-11-26T09:00:00.000Z',
    source: 'event',
    properties: null,
    validationResults: null,
    ...overrides,
  } as StatusChangeNotice;
}

const linesOf = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
const idsOf = (file: string) =>
  linesOf(file).flatMap((line) => {
    try {
      return [(JSON.parse(line) as StatusChangeNotice).id];
    } catch {
      return [];
    }
  });

/**
 * Records every fsync of a file handle with the number of lines `file` held when it was
 * called (a spy on FileHandle's prototype, found through a handle of `probeName`).
 */
async function recordSyncs(file: string, probeName: string) {
  const probe = await open(join(dir, probeName), 'w');
  const FileHandle = Object.getPrototypeOf(probe) as { sync(): Promise<void> };
  await probe.close();
  const synced: number[] = [];
  const realSync = FileHandle.sync;
  const spy = vi.spyOn(FileHandle, 'sync').mockImplementation(function (this: unknown) {
    synced.push(linesOf(file).length);
    return realSync.call(this);
  });
  return { synced, restore: () => spy.mockRestore() };
}

describe('the journal sink', () => {
  it('appends one JSON line per notice, in the order delivered, each on disk when deliver resolves', async () => {
    const file = newFile();
    // Every fsync of a file handle, with the lines the journal held when it was called.
    const { synced, restore } = await recordSyncs(file, 'probe');
    const sink = await createJournalSink({ file, logger });
    const first = notice('n-1', { properties: { errorCode: 'E1', errorMessage: 'line\nbreak' } });
    await sink.deliver(first);
    // Resolved: the line is in the file, whole, and was fsynced once it was.
    expect(linesOf(file)).toEqual([JSON.stringify(first)]);
    expect(synced).toEqual([1]);
    // Delivered at once, written and fsynced one at a time, in call order.
    const many = Array.from({ length: 50 }, (_, i) => notice(`n-${i + 2}`));
    await Promise.all(many.map((n) => sink.deliver(n)));
    restore();
    expect(synced).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
    expect(idsOf(file)).toEqual(['n-1', ...many.map((n) => n.id)]);
    expect(linesOf(file).map((line) => JSON.parse(line))).toEqual([first, ...many]);
    // The same id again in this process: skipped.
    await sink.deliver(notice('n-1', { newValue: 'Other' }));
    expect(idsOf(file)).toHaveLength(51);
    await sink.close?.();
    await expect(sink.deliver(notice('late'))).rejects.toThrow(/closed/);
  });

  it('appends a batch (deliverMany) in one write and one fsync, answering each notice, and skips the ids it holds', async () => {
    const file = newFile();
    const { synced, restore } = await recordSyncs(file, 'probe-batch');
    const signal = new AbortController().signal;
    try {
      const sink = await createJournalSink({ file, logger });
      const batch = Array.from({ length: 16 }, (_, i) => notice(`b-${i}`));
      const outcomes = await sink.deliverMany?.(batch, { signal });
      // One outcome per notice, in order; all sixteen lines on disk at the one fsync.
      expect(outcomes).toEqual(batch.map(() => ({ status: 'fulfilled' })));
      expect(synced).toEqual([16]);
      expect(idsOf(file)).toEqual(batch.map((n) => n.id));
      // A crash after the append, before the outbox recorded it: a new process is handed the
      // same batch again with two new ones; only the new ones are written, one fsync.
      await sink.close?.();
      const after = await createJournalSink({ file, logger });
      const again = [...batch.slice(10), notice('b-16'), notice('b-17')];
      expect(await after.deliverMany?.(again, { signal })).toEqual(
        again.map(() => ({ status: 'fulfilled' })),
      );
      expect(synced).toEqual([16, 18]);
      // A batch of ids it holds: answered, nothing written, no fsync.
      await after.deliverMany?.(batch.slice(0, 3), { signal });
      expect(synced).toEqual([16, 18]);
      await after.close?.();
      expect(idsOf(file)).toEqual([...batch.map((n) => n.id), 'b-16', 'b-17']);
    } finally {
      restore();
    }
  });

  it('refuses the one notice of a batch it cannot write, and writes the others', async () => {
    const file = newFile();
    const sink = await createJournalSink({ file, logger });
    // A value JSON cannot hold (a forked store's notice, say): this notice alone is refused.
    const unwritable = notice('bad', { properties: { amount: 10n } as never });
    const outcomes = await sink.deliverMany?.([notice('ok-1'), unwritable, notice('ok-2')], {
      signal: new AbortController().signal,
    });
    expect(outcomes?.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    await sink.close?.();
    expect(idsOf(file)).toEqual(['ok-1', 'ok-2']);
  });

  it('skips a notice whose id is at the end of the file after a re-create, and appends the rest', async () => {
    const file = newFile();
    const before = await createJournalSink({ file, logger });
    await before.deliver(notice('a'));
    await before.deliver(notice('b'));
    await before.close?.();
    // A crash after the line was written, before the outbox recorded it: b comes again.
    const after = await createJournalSink({ file, logger });
    await after.deliver(notice('b'));
    await after.deliver(notice('c'));
    await after.close?.();
    expect(idsOf(file)).toEqual(['a', 'b', 'c']);
  });

  it('reads only the last 64 KiB: the ids of the complete lines in it', async () => {
    const file = newFile();
    const first = await createJournalSink({ file, logger });
    const padding = 'x'.repeat(1000);
    const count = Math.ceil((2 * JOURNAL_TAIL_BYTES) / 1200);
    for (let i = 0; i < count; i += 1) {
      await first.deliver(notice(`p-${i}`, { properties: { padding } }));
    }
    await first.close?.();
    const again = await createJournalSink({ file, logger });
    // The last line is within the tail: skipped. The first is long out of it: written again
    // (the consumer never redelivers one that old; the bound is what keeps start-up cheap).
    await again.deliver(notice(`p-${count - 1}`));
    await again.deliver(notice('p-0'));
    await again.close?.();
    const ids = idsOf(file);
    expect(ids).toHaveLength(count + 1);
    expect(ids.at(-1)).toBe('p-0');
  });

  it('tolerates a partial last line (a write cut short): ends it and appends whole lines after it', async () => {
    const file = newFile();
    const before = await createJournalSink({ file, logger });
    await before.deliver(notice('whole'));
    await before.close?.();
    const cut = JSON.stringify(notice('cut')).slice(0, 40);
    appendFileSync(file, cut);
    const after = await createJournalSink({ file, logger });
    await after.deliver(notice('whole'));
    await after.deliver(notice('cut'));
    await after.close?.();
    expect(linesOf(file)).toEqual([
      JSON.stringify(notice('whole')),
      cut,
      JSON.stringify(notice('cut')),
    ]);
    // A file that is nothing but a partial line, too.
    const only = newFile();
    const made = await createJournalSink({ file: only, logger });
    await made.close?.();
    writeFileSync(only, '{"id":"half');
    const sink = await createJournalSink({ file: only, logger });
    await sink.deliver(notice('half'));
    await sink.close?.();
    expect(idsOf(only)).toEqual(['half']);
  });

  it('is the default module, creating the file and its directory from SINK_JOURNAL_FILE', async () => {
    const file = newFile();
    const settings = journal.settings.parse({ SINK_JOURNAL_FILE: file });
    expect(journal.settings.parse({}).SINK_JOURNAL_FILE).toBe('./data/status-journal.jsonl');
    expect(journal.describe(settings)).toContain(file);
    const sink = await journal.create({ settings, logger });
    await sink.deliver(notice('m'));
    await sink.close?.();
    expect(idsOf(file)).toEqual(['m']);
  });
});

describe('the journal is private (issue 37)', () => {
  it('creates its file 0600 and its folders 0700, whatever the umask lets others read', async () => {
    const file = newFile();
    const sink = await createJournalSink({ file, logger });
    await sink.deliver(notice('private'));
    await sink.close?.();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Both folders it made: `nested` and the run's folder above it.
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    expect(statSync(dirname(dirname(file))).mode & 0o777).toBe(0o700);
  });

  it('leaves the mode of a file that exists, and warns when every user may read it', async () => {
    const file = newFile();
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '', { mode: 0o644 });
    chmodSync(file, 0o644);
    const lines: Record<string, unknown>[] = [];
    const recording = pino(
      { level: 'warn' },
      { write: (line: string) => lines.push(JSON.parse(line)) },
    );
    const sink = await createJournalSink({ file, logger: recording });
    await sink.close?.();
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        file,
        mode: '0644',
        msg: expect.stringMatching(/chmod 600/),
      }),
    ]);
    // Made private by its owner (or group-readable for a reader): no warning.
    chmodSync(file, 0o640);
    const again = await createJournalSink({ file, logger: recording });
    await again.close?.();
    expect(lines).toHaveLength(1);
  });

  it('writes U+2028 and U+2029 escaped: each line is one line for every reader, and parses back', async () => {
    const file = newFile();
    const sink = await createJournalSink({ file, logger });
    const value = notice('separators', {
      properties: { errorMessage: 'first\u2028second\u2029third' },
    });
    await sink.deliver(value);
    await sink.close?.();
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(/[\u2028\u2029]/);
    expect(text).toContain(String.raw`first\u2028second\u2029third`);
    // A reader that splits on every Unicode line end (JavaScript's, an editor's) sees one line.
    expect(text.split(/\r\n|[\n\r\u2028\u2029]/).filter((line) => line !== '')).toHaveLength(1);
    expect(JSON.parse(text)).toEqual(value);
    // Valid JavaScript too: the line as an expression.
    expect(new Function(`return ${text}`)()).toEqual(value);
    // And its id is found again after a restart: not written twice.
    const after = await createJournalSink({ file, logger });
    await after.deliver(value);
    await after.close?.();
    expect(idsOf(file)).toEqual(['separators']);
  });
});
