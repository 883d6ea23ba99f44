/**
 * Finds the importer a process uses (IMPORTER_MODULE), checks its module and parses its own
 * settings, so that every command resolves an importer the same way: `npm run dev`, `npm
 * start`, `npm run reconcile`, the tests and the image.
 *
 * IMPORTER_MODULE is either a name or a path:
 *   - a name (`file`, `erp-http`, `my-erp`) is a module of src/importers/: `<name>.ts` when
 *     running from source, the compiled `dist/src/importers/<name>.js` in the image;
 *   - a path (`./lib/importer.ts`, `/opt/importer.js`) is resolved against the project's
 *     root, never the working directory; a `.ts` path under the project also finds its compiled
 *     `.js` under dist/.
 * Unset, it is `file` (the default importer), except in production, where config.ts refuses
 * to start without a choice.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, extname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import type { ImporterDefinition } from './define-importer.ts';
import type { Importer } from './importer.ts';

/** IMPORTER_MODULE when it is unset (outside production). */
export const DEFAULT_IMPORTER = 'file';

/** The variable that names the importer. */
export const IMPORTER_VARIABLE = 'IMPORTER_MODULE';

// This file is src/consumer/importer/load-importer.ts, or dist/src/consumer/importer/*.js
// once compiled: the importers and the project's root are found from here, not from the cwd.
const COMPILED = import.meta.url.endsWith('.js');
const EXTENSION = COMPILED ? '.js' : '.ts';
const IMPORTERS_DIR = fileURLToPath(new URL('../../importers/', import.meta.url));
export const PROJECT_ROOT = fileURLToPath(
  new URL(COMPILED ? '../../../../' : '../../../', import.meta.url),
);

const NAME = /^[a-z0-9][a-z0-9-]*$/;
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSPHRASE|KEY|CREDENTIAL/i;

/** An importer whose module loaded and whose settings are valid, ready to create. */
export interface LoadedImporter {
  /** As IMPORTER_MODULE named it (`file` when unset). */
  spec: string;
  /** The definition's name, or the module's file name. */
  name: string;
  /** The module's file. */
  file: string;
  /** The environment variables its settings read (its schema's names). */
  variables: readonly string[];
  /** Where imports go, from the definition's describe(). */
  describe(context: { documentsDir: string }): string;
  /** Builds the importer (once per process). */
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
  const spec = env[IMPORTER_VARIABLE]?.trim() || DEFAULT_IMPORTER;
  const loaded = await importDefinition(spec, IMPORTERS, isDefinition, (module, path) =>
    typeof module.createImporter === 'function'
      ? `${IMPORTER_VARIABLE} ${spec}: ${path} exports createImporter(config, logger), the contract before importer modules; export default defineImporter({ settings, describe, create }) instead (docs/forking.md)`
      : `${IMPORTER_VARIABLE} ${spec}: ${path} has no default export made with defineImporter({ settings, describe, create }) (docs/forking.md)`,
  );
  if ('problems' in loaded) return loaded;
  const { definition, path } = loaded;
  const name = definition.name ?? basename(path, extname(path));
  const parsed = parseSettings({ ...definition, name }, env, options.coreVariables);
  if ('problems' in parsed) return parsed;
  const { settings } = parsed;
  return {
    importer: {
      spec,
      name,
      file: path,
      variables: Object.keys(definition.settings.shape),
      describe: (context) => definition.describe(settings, context),
      async create({ logger, documentsDir }) {
        const importer = await definition.create({
          settings,
          logger: logger.child({ importer: name }),
          documentsDir,
        });
        if (typeof importer?.import !== 'function') {
          throw new ImporterModuleError(
            `importer ${name} (${path}): create() did not return an object with an import() method`,
          );
        }
        return importer;
      },
    },
  };
}

/** The built-in and forked importers of src/importers/, by name. */
export function importerNames(): string[] {
  return moduleNames(IMPORTERS);
}

/**
 * A folder of fork modules a variable names (src/importers/ for IMPORTER_MODULE; the status
 * sink's load-sink.ts has its own), as a URL relative to this file.
 */
export interface ModuleFolder {
  /** The variable that names a module, e.g. IMPORTER_MODULE. */
  variable: string;
  /** The folder, as said in messages, e.g. `src/importers/`. */
  folder: string;
  /** Where that folder is, from this file (compiled or not). */
  dir: string;
}

const IMPORTERS: ModuleFolder = {
  variable: IMPORTER_VARIABLE,
  folder: 'src/importers/',
  dir: IMPORTERS_DIR,
};

/** The folder of a kind of fork module: `folder` is relative to src/ (`importers`, `sinks`). */
export function moduleFolder(variable: string, folder: string): ModuleFolder {
  return {
    variable,
    folder: `src/${folder}/`,
    dir: fileURLToPath(new URL(`../../${folder}/`, import.meta.url)),
  };
}

/** The modules of a folder, by name. */
export function moduleNames(place: ModuleFolder): string[] {
  if (!existsSync(place.dir)) return [];
  return readdirSync(place.dir)
    .filter((file) => file.endsWith(EXTENSION) && !file.endsWith(`.d${EXTENSION}`))
    .map((file) => file.slice(0, -EXTENSION.length))
    .filter((name) => NAME.test(name))
    .sort();
}

/** The file a module's name or path is: a name is a file of `place`, a path from the root. */
export function findModule(
  spec: string,
  place: ModuleFolder,
): { path: string } | { problem: string } {
  const candidates = NAME.test(spec) ? [join(place.dir, `${spec}${EXTENSION}`)] : paths(spec);
  const path = candidates.find((candidate) => existsSync(candidate));
  if (path !== undefined) return { path };
  const known = moduleNames(place);
  return {
    problem:
      `${place.variable} ${spec}: no module at ${candidates.join(' or ')}` +
      (NAME.test(spec)
        ? `; a name is a file of ${place.folder} (there: ${known.join(', ') || 'none'})`
        : ''),
  };
}

/**
 * The module `spec` names in `place`, imported, and its default export if `isDefinition` says
 * it is one; or the problem, naming the variable (`wrongExport` says what is wrong with a
 * module whose default export is not a definition).
 */
export async function importDefinition<D>(
  spec: string,
  place: ModuleFolder,
  isDefinition: (value: unknown) => value is D,
  wrongExport: (module: Record<string, unknown>, path: string) => string,
): Promise<{ definition: D; path: string } | { problems: string[] }> {
  const file = findModule(spec, place);
  if ('problem' in file) return { problems: [file.problem] };
  let module: Record<string, unknown>;
  try {
    module = await import(pathToFileURL(file.path).href);
  } catch (error) {
    return {
      problems: [
        `${place.variable} ${spec}: ${file.path} could not be loaded: ${(error as Error).message}`,
      ],
    };
  }
  if (!isDefinition(module.default)) return { problems: [wrongExport(module, file.path)] };
  return { definition: module.default, path: file.path };
}

/** Where a path may be: as given, and its compiled twin when this process runs compiled. */
function paths(spec: string): string[] {
  const base = isAbsolute(spec) ? spec : join(PROJECT_ROOT, spec);
  const withExtension = /\.[cm]?[jt]s$/.test(base) ? [base] : [`${base}.ts`, `${base}.js`];
  if (!COMPILED) return withExtension;
  const inProject = relative(PROJECT_ROOT, base);
  const compiled =
    !inProject.startsWith('..') && !isAbsolute(inProject) && !inProject.startsWith('dist/')
      ? [join(PROJECT_ROOT, 'dist', inProject).replace(/\.ts$/, '.js')]
      : [];
  const compiledWithExtension = compiled.map((path) =>
    /\.[cm]?js$/.test(path) ? path : `${path}.js`,
  );
  return [...new Set([...compiledWithExtension, ...withExtension])];
}

function isDefinition(value: unknown): value is ImporterDefinition {
  const d = value as Partial<ImporterDefinition> | undefined;
  return (
    typeof d === 'object' &&
    d !== null &&
    (d.name === undefined || typeof d.name === 'string') &&
    typeof d.create === 'function' &&
    typeof d.describe === 'function' &&
    typeof d.settings?.safeParse === 'function' &&
    typeof d.settings.shape === 'object'
  );
}

/**
 * The importer's variables parsed by its schema. Only the names it declares are read from
 * `env` (so a lenient schema never sees the rest); unset and empty both read as undefined.
 * `kind` words the problems; the status sink's settings (load-sink.ts) are parsed here too.
 */
export function parseSettings(
  definition: Pick<ImporterDefinition, 'settings'> & { name: string },
  env: Env,
  coreVariables: ReadonlySet<string>,
  kind: 'importer' | 'sink' = 'importer',
): { settings: Record<string, unknown> } | { problems: string[] } {
  const names = Object.keys(definition.settings.shape);
  const taken = names.filter((name) => coreVariables.has(name));
  if (taken.length > 0) {
    const article = kind === 'importer' ? 'an' : 'a';
    const prefix = kind === 'importer' ? 'ERP_' : 'SINK_';
    return {
      problems: taken.map(
        (name) =>
          `${kind} ${definition.name} declares ${name}, a variable of the consumer itself: ${article} ${kind} reads variables of its own (use a prefix such as ${prefix})`,
      ),
    };
  }
  const input: Record<string, string | undefined> = {};
  for (const name of names) {
    const value = env[name]?.trim();
    input[name] = value === '' ? undefined : value;
  }
  const result = definition.settings.safeParse(input);
  if (result.success) return { settings: result.data as Record<string, unknown> };
  const problems = result.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? '');
    const value = input[name];
    if (value === undefined) return `${name} is required (${kind} ${definition.name})`;
    // The value may be a secret: name the variable, never echo it.
    const shown = SECRET_NAME.test(name) ? '' : ` (got ${JSON.stringify(value.slice(0, 200))})`;
    return `${name}: ${issue.message} (${kind} ${definition.name})${shown}`;
  });
  return { problems: [...new Set(problems)] };
}
