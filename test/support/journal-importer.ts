/**
 * The importer the import-guarantee tests run real processes with, plugged in as a forker
 * plugs in theirs (IMPORTER_MODULE=<this file>): the importer under test (TEST_IMPORTER_INNER,
 * `file` unless `npm run test:importer` names the forker's) behind a journal. Every call
 * appends one JSON line when it starts and one when it ends to TEST_IMPORTER_LOG (appends of
 * one short line are atomic, so several processes can share the file); the tests count imports
 * through it, whatever the importer does with the documents. Optional behaviour:
 *
 *   TEST_IMPORTER_DELAY_MS   before importing, wait up to this long (a delay drawn from
 *                            TEST_IMPORTER_SEED and the messageId), to widen race windows
 *   TEST_IMPORTER_HANG       `until-aborted`: wait for the signal, then throw its reason;
 *                            `ignore-signal`: wait TEST_IMPORTER_HANG_MS whatever the signal
 *                            says, then import;
 *                            `until-gate`: wait until the file TEST_IMPORTER_GATE exists
 *                            (the test creates it), whatever the signal says, then import
 *
 * The inner importer's own settings come from the environment, as they would in production
 * (test code, so it reads process.env itself).
 */
import { appendFileSync, existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { coreVariableNames } from '../../src/consumer/config.ts';
import {
  defineImporter,
  readImporter,
  recordedLocation,
  z,
} from '../../src/consumer/importer/index.ts';

export interface ImporterJournalEntry {
  phase: 'start' | 'end' | 'error';
  messageId: string;
  pid: number;
  previouslyAttempted: boolean;
  status?: string;
  location?: string;
  error?: string;
}

const milliseconds = z.coerce.number().int().min(0).default(0);

export default defineImporter({
  name: 'journal',
  settings: z
    .object({
      TEST_IMPORTER_LOG: z.string(),
      TEST_IMPORTER_INNER: z.string().default('file'),
      TEST_IMPORTER_DELAY_MS: milliseconds,
      TEST_IMPORTER_SEED: z.string().default('0'),
      TEST_IMPORTER_HANG: z.enum(['until-aborted', 'ignore-signal', 'until-gate']).optional(),
      TEST_IMPORTER_HANG_MS: milliseconds,
      TEST_IMPORTER_GATE: z.string().optional(),
    })
    // Without its file, `until-gate` would wait for good.
    .refine((s) => s.TEST_IMPORTER_HANG !== 'until-gate' || s.TEST_IMPORTER_GATE !== undefined, {
      path: ['TEST_IMPORTER_GATE'],
      message: 'is required with TEST_IMPORTER_HANG=until-gate',
    }),
  describe: (s) => `the ${s.TEST_IMPORTER_INNER} importer, journaled to ${s.TEST_IMPORTER_LOG}`,
  async create({ settings, logger, documentsDir }) {
    const loaded = await readImporter(
      { ...process.env, IMPORTER_MODULE: settings.TEST_IMPORTER_INNER },
      { coreVariables: coreVariableNames() },
    );
    if ('problems' in loaded) throw new Error(loaded.problems.join('\n'));
    const inner = await loaded.importer.create({ logger, documentsDir });
    const journal = settings.TEST_IMPORTER_LOG;
    const hang = settings.TEST_IMPORTER_HANG;
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
          const maxDelayMs = settings.TEST_IMPORTER_DELAY_MS;
          if (maxDelayMs > 0) {
            await delay(hash(`${settings.TEST_IMPORTER_SEED}:${input.messageId}`) % maxDelayMs);
          }
          if (hang === 'until-aborted') {
            await new Promise((_resolve, reject) => {
              input.signal.addEventListener('abort', () => reject(input.signal.reason), {
                once: true,
              });
            });
          } else if (hang === 'ignore-signal') {
            await delay(settings.TEST_IMPORTER_HANG_MS);
          } else if (hang === 'until-gate') {
            while (!existsSync(settings.TEST_IMPORTER_GATE as string)) await delay(20);
          }
          const ignores = hang === 'ignore-signal' || hang === 'until-gate';
          const signal = ignores ? new AbortController().signal : input.signal;
          const result = await inner.import({ ...input, signal });
          write({
            ...base,
            phase: 'end',
            status: result.status,
            location: recordedLocation(result),
          });
          return result;
        } catch (error) {
          write({ ...base, phase: 'error', error: String(error) });
          throw error;
        }
      },
      ...(inner.forget === undefined ? {} : { forget: inner.forget.bind(inner) }),
    };
  },
});

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
