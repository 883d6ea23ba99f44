/**
 * SINK_MODULE=journal: the default status sink. Each status change is appended to a file as one
 * JSON line (a StatusNotice), fsynced before deliver() resolves, for a system that tails or
 * reads a file. The notices the consumer hands over at once (deliverMany) are appended in one
 * write and one fsync: an fsync costs the same for one line as for sixteen, and was half of
 * what delivering a notice cost (issue 39). Its setting:
 *
 *   SINK_JOURNAL_FILE   @default ./data/status-journal.jsonl
 *
 * The default sits beside the consumer's other data (DATABASE_URL's `sqlite:./data/consumer.db`
 * and DOCUMENTS_DIR's `./data/documents`), relative to the working directory as they are; where
 * DATABASE_URL and DOCUMENTS_DIR point elsewhere (the image: /data), set SINK_JOURNAL_FILE
 * beside them (`/data/status-journal.jsonl`).
 *
 * The file is only ever appended to. Idempotent on the notice's id: at start the last 64 KiB
 * of the file are read and the ids of their complete lines remembered, as are the ids written
 * by this process (the last 10,000), and a notice already there is skipped. That covers the
 * one redelivery the consumer makes (a crash after the line was written, before the outbox
 * recorded it: the line is among the last). A line that does not parse is the remains of a
 * crash in the middle of a write: it is ended with a newline and left, and a reader skips it.
 *
 * The journal is private: it holds invoice numbers and status properties (a rejection's
 * reason, a payment), so a file it creates is 0600 and the folders it creates 0700 (the umask
 * can only take more away; before issue 37 they were 0644 and 0755 under the usual umask,
 * readable by every user of the host). A file that exists keeps its mode: whoever made it group-readable for the system
 * that tails it meant to; one that every user may read draws a warning at start. U+2028 and
 * U+2029 are written escaped, so each line is valid JSON and valid JavaScript alike, and no
 * reader that splits on Unicode line ends (a JavaScript line reader, an editor) sees a line cut.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, statSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import {
  defineStatusSink,
  type NoticeOutcome,
  type StatusNotice,
  type StatusSink,
  z,
} from '../consumer/sink/index.ts';

/** SINK_JOURNAL_FILE when it is unset: beside ./data/consumer.db and ./data/documents. */
export const DEFAULT_JOURNAL_FILE = './data/status-journal.jsonl';

/** How much of the file's end is read at start for the ids already written. */
export const JOURNAL_TAIL_BYTES = 64 * 1024;
/** How many ids written by this process are remembered. */
export const JOURNAL_REMEMBERED_IDS = 10_000;

/** The mode of a journal file the sink creates: its owner's alone. */
export const JOURNAL_FILE_MODE = 0o600;
/** The mode of the folders the sink creates for it. */
export const JOURNAL_FOLDER_MODE = 0o700;

const settings = z.object({
  /** The journal file, created with its directory when missing. */
  SINK_JOURNAL_FILE: z.string().min(1).default(DEFAULT_JOURNAL_FILE),
});

export interface JournalSinkOptions {
  file: string;
  logger: Logger;
}

export async function createJournalSink(options: JournalSinkOptions): Promise<StatusSink> {
  const file = resolve(options.file);
  const { logger } = options;
  mkdirSync(dirname(file), { recursive: true, mode: JOURNAL_FOLDER_MODE });
  const tail = await readTail(file);
  // The mode applies only when the file is created here; an existing one keeps its own.
  const handle = await open(file, 'a', JOURNAL_FILE_MODE);
  if (tail.created) syncDirectory(dirname(file));
  else warnIfWorldReadable(file, logger);
  if (tail.partial) {
    logger.warn(
      { file },
      'the journal ends in a partial line (a write cut short by a crash); it is ended with a newline and left as is',
    );
  }

  // The ids written, oldest first; a Set keeps insertion order, so the oldest go first.
  const remembered = new Set<string>(tail.ids);
  const remember = (id: string) => {
    remembered.delete(id);
    remembered.add(id);
    while (remembered.size > JOURNAL_REMEMBERED_IDS) {
      remembered.delete(remembered.values().next().value as string);
    }
  };
  // Whether the file may end without a newline: at start, and after a write that failed.
  let mayBePartial = tail.partial;
  let queue: Promise<void> = Promise.resolve();
  let closed = false;

  /**
   * Appends the notices not written yet, as one write and one fsync however many they are;
   * one outcome per notice. A notice written already (the redelivery after a crash) or twice
   * in the batch is skipped, and answered as taken: the file holds it.
   */
  async function append(notices: readonly StatusNotice[]): Promise<NoticeOutcome[]> {
    if (closed) throw new Error(`the status journal ${file} is closed`);
    const outcomes: NoticeOutcome[] = [];
    const written = new Set<string>();
    let text = '';
    for (const notice of notices) {
      if (remembered.has(notice.id) || written.has(notice.id)) {
        logger.debug({ noticeId: notice.id }, 'notice in the journal already; skipped');
        outcomes.push({ status: 'fulfilled' });
        continue;
      }
      let line: string;
      try {
        line = journalLine(notice);
      } catch (error) {
        // A notice that cannot be written as JSON: refused alone, the others still go.
        outcomes.push({ status: 'rejected', reason: error });
        continue;
      }
      text += `${line}\n`;
      written.add(notice.id);
      outcomes.push({ status: 'fulfilled' });
    }
    if (written.size === 0) return outcomes;
    if (mayBePartial && (await endsPartial(file))) text = `\n${text}`;
    try {
      await handle.appendFile(text);
      await handle.sync();
    } catch (error) {
      mayBePartial = true;
      throw new Error(
        `could not append to the status journal ${file}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    mayBePartial = false;
    for (const id of written) remember(id);
    return outcomes;
  }

  // One write at a time, in the order the calls came.
  function queued<T>(write: () => Promise<T>): Promise<T> {
    const done = queue.then(write);
    queue = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }

  return {
    async deliver(notice) {
      const [outcome] = await queued(() => append([notice]));
      if (outcome?.status === 'rejected') throw outcome.reason;
    },
    deliverMany: (notices) => queued(() => append(notices)),
    async close() {
      if (closed) return;
      closed = true;
      await queue;
      await handle.close();
    },
  };
}

/**
 * A notice as one line of JSON, U+2028 and U+2029 escaped: JSON.stringify writes them raw, and
 * they can stand only inside strings, so replacing each with its escape changes no value.
 */
export function journalLine(notice: StatusNotice): string {
  return JSON.stringify(notice).replace(/[\u2028\u2029]/g, (c) =>
    c === '\u2028' ? '\\u2028' : '\\u2029',
  );
}

/** A warning for a journal every user of the host may read; its mode is left as it is. */
function warnIfWorldReadable(file: string, logger: Logger): void {
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o004) === 0) return;
  logger.warn(
    { file, mode: mode.toString(8).padStart(4, '0') },
    'the status journal can be read by every user of this host; it holds invoice numbers and status properties: chmod 600 it',
  );
}

interface Tail {
  /** Ids of the complete lines among the last JOURNAL_TAIL_BYTES. */
  ids: string[];
  /** The file does not end with a newline. */
  partial: boolean;
  /** The file did not exist. */
  created: boolean;
}

async function readTail(file: string): Promise<Tail> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { ids: [], partial: false, created: true };
    }
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - JOURNAL_TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    let read = 0;
    while (read < buffer.length) {
      const { bytesRead } = await handle.read(buffer, read, buffer.length - read, start + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    const lines = buffer.subarray(0, read).toString('utf8').split('\n');
    // The last piece follows the last newline: empty, or a partial line. The first piece may
    // be the end of a line that began before the tail.
    const partial = lines.pop() !== '';
    if (start > 0) lines.shift();
    const ids: string[] = [];
    for (const line of lines) {
      const id = idOf(line);
      if (id !== undefined) ids.push(id);
    }
    return { ids, partial, created: false };
  } finally {
    await handle.close();
  }
}

function idOf(line: string): string | undefined {
  try {
    const value = JSON.parse(line) as { id?: unknown } | null;
    return typeof value?.id === 'string' ? value.id : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the file's last byte is there and is not a newline. */
async function endsPartial(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    await handle.close();
  }
}

/** A new file's directory entry, made durable with it. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Not every file system lets a directory be fsynced; the file's own fsync still holds.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export default defineStatusSink({
  settings,
  describe: (s) => `status changes are appended to ${resolve(s.SINK_JOURNAL_FILE)} (JSON lines)`,
  create: ({ settings: s, logger }) => createJournalSink({ file: s.SINK_JOURNAL_FILE, logger }),
});
