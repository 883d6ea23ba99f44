/**
 * An importer for tests that run real processes, plugged in as a forker plugs in theirs:
 * `IMPORTER_MODULE=<this file>`. It is the default file importer plus a journal: every call
 * appends one JSON line when it starts and one when it ends to TEST_IMPORTER_LOG (appends of
 * one short line are atomic, so several processes can share the file). Optional behaviour:
 *
 *   TEST_IMPORTER_DELAY_MS   before importing, wait up to this long (a delay drawn from
 *                            TEST_IMPORTER_SEED and the messageId), to widen race windows
 *   TEST_IMPORTER_HANG       `until-aborted`: wait for the signal, then throw its reason;
 *                            `ignore-signal`: wait TEST_IMPORTER_HANG_MS whatever the signal
 *                            says, then import;
 *                            `until-gate`: wait until the file TEST_IMPORTER_GATE exists
 *                            (the test creates it), whatever the signal says, then import
 *
 * Test code, so it reads its settings from process.env itself.
 */
import { appendFileSync, existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Config } from '../../src/consumer/config.ts';
import { createFileImporter, type Importer } from '../../src/consumer/importer/index.ts';

export interface ImporterJournalEntry {
  phase: 'start' | 'end' | 'error';
  messageId: string;
  pid: number;
  previouslyAttempted: boolean;
  status?: string;
  error?: string;
}

export function createImporter(config: Readonly<Config>, logger: Logger): Importer {
  const env = process.env;
  const journal = env.TEST_IMPORTER_LOG;
  if (journal === undefined) throw new Error('TEST_IMPORTER_LOG is required');
  const maxDelayMs = Number(env.TEST_IMPORTER_DELAY_MS ?? 0);
  const seed = env.TEST_IMPORTER_SEED ?? '0';
  const hang = env.TEST_IMPORTER_HANG;
  const hangMs = Number(env.TEST_IMPORTER_HANG_MS ?? 0);
  const files = createFileImporter({ documentsDir: config.documentsDir, logger });
  const write = (entry: ImporterJournalEntry) =>
    appendFileSync(journal, `${JSON.stringify(entry)}\n`);

  return {
    async import(input) {
      const base = {
        messageId: input.messageId,
        pid: process.pid,
        previouslyAttempted: input.previouslyAttempted,
      };
      write({ ...base, phase: 'start' });
      try {
        if (maxDelayMs > 0) await delay(hash(`${seed}:${input.messageId}`) % maxDelayMs);
        if (hang === 'until-aborted') {
          await new Promise((_resolve, reject) => {
            input.signal.addEventListener('abort', () => reject(input.signal.reason), {
              once: true,
            });
          });
        } else if (hang === 'ignore-signal') {
          await delay(hangMs);
        } else if (hang === 'until-gate') {
          while (!existsSync(env.TEST_IMPORTER_GATE ?? '')) await delay(20);
        }
        const ignores = hang === 'ignore-signal' || hang === 'until-gate';
        const signal = ignores ? new AbortController().signal : input.signal;
        const result = await files.import({ ...input, signal });
        write({ ...base, phase: 'end', status: result.status });
        return result;
      } catch (error) {
        write({ ...base, phase: 'error', error: String(error) });
        throw error;
      }
    },
  };
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/** Reads a journal back. */
export function parseJournal(text: string): ImporterJournalEntry[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ImporterJournalEntry);
}
