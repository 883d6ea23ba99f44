/**
 * The importer a process uses: `createImporter` of create-importer.ts, or, when
 * IMPORTER_MODULE names a module, that module's own `createImporter(config, logger)`. The
 * module lets a deployment plug in its importer without changing this repository's files
 * (and lets tests run real processes with a test importer); editing create-importer.ts stays
 * the simplest way for a fork.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { createImporter } from './create-importer.ts';
import type { Importer } from './importer.ts';

/** What IMPORTER_MODULE must export. */
export type CreateImporter = (
  config: Readonly<Config>,
  logger: Logger,
) => Importer | Promise<Importer>;

export class ImporterModuleError extends Error {
  override readonly name = 'ImporterModuleError';
}

export async function loadImporter(config: Readonly<Config>, logger: Logger): Promise<Importer> {
  if (config.importerModule === undefined) return createImporter(config, logger);
  const url = pathToFileURL(resolve(config.importerModule)).href;
  let module: { createImporter?: unknown };
  try {
    module = await import(url);
  } catch (error) {
    throw new ImporterModuleError(
      `IMPORTER_MODULE ${config.importerModule} could not be loaded: ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (typeof module.createImporter !== 'function') {
    throw new ImporterModuleError(
      `IMPORTER_MODULE ${config.importerModule} does not export a function createImporter(config, logger)`,
    );
  }
  const importer = await (module.createImporter as CreateImporter)(config, logger);
  if (typeof importer?.import !== 'function') {
    throw new ImporterModuleError(
      `IMPORTER_MODULE ${config.importerModule}: createImporter() did not return an importer`,
    );
  }
  logger.info({ importerModule: config.importerModule }, 'importer loaded');
  return importer;
}
