/**
 * The soak's importer, plugged in as a forker plugs in theirs (`IMPORTER_MODULE=<this file>`):
 * the default file importer, plus one line appended to SOAK_IMPORT_LOG for every import()
 * call that returns (`<messageId> <status>`) or throws (`<messageId> error`). The soak counts
 * those lines to prove that no invoice was imported twice and none was left out. Appends of
 * one short line are atomic, and the file is written, never held in memory.
 *
 * Benchmark code run inside the consumer, so it reads its one setting from process.env itself.
 */
import { appendFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Config } from '../src/consumer/config.ts';
import { createFileImporter, type Importer } from '../src/consumer/importer/index.ts';

export function createImporter(config: Readonly<Config>, logger: Logger): Importer {
  const journal = process.env.SOAK_IMPORT_LOG;
  if (journal === undefined) throw new Error('SOAK_IMPORT_LOG is required');
  const files = createFileImporter({ documentsDir: config.documentsDir, logger });
  return {
    async import(input) {
      try {
        const result = await files.import(input);
        appendFileSync(journal, `${input.messageId} ${result.status}\n`);
        return result;
      } catch (error) {
        appendFileSync(journal, `${input.messageId} error\n`);
        throw error;
      }
    },
  };
}
