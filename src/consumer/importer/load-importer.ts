/**
 * Finds the importer a process uses (IMPORTER_MODULE), checks its module and parses its own
 * settings, so that every command resolves an importer the same way: `npm run dev`, `npm
 * start`, `npm run reconcile`, the tests and the image. The finding and the parsing are the
 * status sink's too (../modules/).
 *
 * IMPORTER_MODULE is either a name or a path:
 *   - a name (`file`, `erp-http`, `my-erp`) is a module of src/importers/: `<name>.ts` when
 *     running from source, the compiled `dist/src/importers/<name>.js` in the image;
 *   - a path (`./lib/importer.ts`, `/opt/importer.js`) is resolved against the project's
 *     root, never the working directory; a `.ts` path under the project also finds its compiled
 *     `.js` under dist/.
 * Unset, it is `file` (the default importer), except in production, where config.ts refuses
 * to start without a choice.
 *
 * What the module says and does passes its redaction (modules/module-redaction.ts): describe(),
 * the logger it is given, what create() throws, and the importer it creates
 * (redacting-importer.ts), so none of its secrets leaves through the consumer.
 */
import type { Logger } from 'pino';
import { moduleFolder, moduleNames } from '../modules/module-folder.ts';
import { type LoadedModule, type ModuleReading, readModule } from '../modules/read-module.ts';
import type { ImporterDefinition } from './define-importer.ts';
import type { Importer } from './importer.ts';
import { redactingImporter } from './redacting-importer.ts';

export { parseSettings } from '../modules/read-module.ts';

/** IMPORTER_MODULE when it is unset (outside production). */
export const DEFAULT_IMPORTER = 'file';

/** The variable that names the importer. */
export const IMPORTER_VARIABLE = 'IMPORTER_MODULE';

const IMPORTERS: ModuleReading = {
  kind: 'importer',
  place: moduleFolder(IMPORTER_VARIABLE, 'importers'),
  fallback: DEFAULT_IMPORTER,
  wrongExport: (module, path, spec) =>
    typeof module.createImporter === 'function'
      ? `${IMPORTER_VARIABLE} ${spec}: ${path} exports createImporter(config, logger), the contract before importer modules; export default defineImporter({ settings, describe, create }) instead (docs/forking.md)`
      : `${IMPORTER_VARIABLE} ${spec}: ${path} has no default export made with defineImporter({ settings, describe, create }) (docs/forking.md)`,
};

/** An importer whose module loaded and whose settings are valid, ready to create. */
export interface LoadedImporter extends LoadedModule {
  /** Where imports go, from the definition's describe(), its secrets and URL userinfo hidden. */
  describe(context: { documentsDir: string }): string;
  /** Builds the importer (once per process), whose results and errors are redacted. */
  create(deps: { logger: Logger; documentsDir: string }): Promise<Importer>;
}

/** The importer's module misbehaved at creation (a factory that returned no importer). */
export class ImporterModuleError extends Error {
  override readonly name = 'ImporterModuleError';
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The importer IMPORTER_MODULE names, with its settings read from `env`; or every problem
 * found, each naming the variable, for the caller to report with the core configuration's.
 * `coreVariables` are the consumer's own names, which an importer may not declare.
 */
export async function readImporter(
  env: Env,
  options: { coreVariables: ReadonlySet<string> },
): Promise<{ importer: LoadedImporter } | { problems: string[] }> {
  const read = await readModule<ImporterDefinition>(env, IMPORTERS, options.coreVariables);
  if ('problems' in read) return read;
  const { definition, settings, redaction, ...loaded } = read.module;
  const { name, file } = loaded;
  return {
    importer: {
      ...loaded,
      describe: (context) => redaction.text(definition.describe(settings, context)),
      async create({ logger, documentsDir }) {
        const importer = await redaction.guard(() =>
          definition.create({
            settings,
            logger: redaction.logger(logger.child({ importer: name })),
            documentsDir,
          }),
        );
        if (typeof importer?.import !== 'function') {
          throw new ImporterModuleError(
            `importer ${name} (${file}): create() did not return an object with an import() method`,
          );
        }
        return redactingImporter(importer, redaction);
      },
    },
  };
}

/** The built-in and forked importers of src/importers/, by name. */
export function importerNames(): string[] {
  return moduleNames(IMPORTERS.place);
}
