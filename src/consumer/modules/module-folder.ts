/**
 * Where a fork module is: the consumer's two fork points, the importer (IMPORTER_MODULE,
 * src/importers/) and the status sink (SINK_MODULE, src/sinks/), are named the same way, and
 * this file finds them for both.
 *
 * A variable names either a module of its folder or a path:
 *   - a name (`file`, `journal`, `my-erp`) is a module of the folder: `<name>.ts` when running
 *     from source, the compiled `dist/src/<folder>/<name>.js` in the image;
 *   - a path (`./lib/importer.ts`, `/opt/sink.js`) is resolved against the project's root,
 *     never the working directory; a `.ts` path under the project also finds its compiled `.js`
 *     under dist/.
 */
import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

// This file is src/consumer/modules/module-folder.ts, or dist/src/consumer/modules/*.js once
// compiled: the module folders and the project's root are found from here, not from the cwd.
const COMPILED = import.meta.url.endsWith('.js');
const EXTENSION = COMPILED ? '.js' : '.ts';
export const PROJECT_ROOT = fileURLToPath(
  new URL(COMPILED ? '../../../../' : '../../../', import.meta.url),
);

const NAME = /^[a-z0-9][a-z0-9-]*$/;

/** A folder of fork modules and the variable that names one of them. */
export interface ModuleFolder {
  /** The variable that names a module, e.g. IMPORTER_MODULE. */
  variable: string;
  /** The folder, as said in messages, e.g. `src/importers/`. */
  folder: string;
  /** Where that folder is, from this file (compiled or not). */
  dir: string;
}

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
