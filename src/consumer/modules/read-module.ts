/**
 * Reads a fork module, the importer or the status sink, from the environment: the module its
 * variable names (module-folder.ts), imported, its default export checked, and its own
 * settings parsed by its zod schema. Every problem names the variable, so that the caller
 * reports them with the core configuration's, in one list (exit 2).
 *
 * What an importer and a sink have in common is their definition's shape, `{ name?, settings,
 * describe, create }`; what `describe` and `create` take and give is theirs
 * (importer/load-importer.ts, sink/load-sink.ts).
 */
import { basename, extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { findModule, type ModuleFolder } from './module-folder.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** The kinds of fork module: they word the problems. */
export type ModuleKind = 'importer' | 'sink';

/** The shape every fork module's default export has (define-importer.ts, define-sink.ts). */
export interface ModuleDefinition {
  name?: string;
  settings: z.ZodObject;
  // Each kind types its own arguments: `never[]` takes any of them.
  describe(...args: never[]): string;
  create(...args: never[]): unknown;
}

/** What a loaded importer or sink says of itself (LoadedImporter, LoadedSink). */
export interface LoadedModule {
  /** As its variable named it (the default when unset). */
  spec: string;
  /** The definition's name, or the module's file name. */
  name: string;
  /** The module's file. */
  file: string;
  /** The environment variables its settings read (its schema's names). */
  variables: readonly string[];
}

/** How to read one kind of module. */
export interface ModuleReading {
  kind: ModuleKind;
  place: ModuleFolder;
  /** The module when the variable is unset or empty. */
  fallback: string;
  /** What is wrong with a module whose default export is not a definition. */
  wrongExport(module: Record<string, unknown>, path: string, spec: string): string;
}

/** A module read: what it says of itself, its definition and its parsed settings. */
export interface ReadModule<D extends ModuleDefinition> extends LoadedModule {
  definition: D;
  settings: Record<string, unknown>;
}

/**
 * The module the variable names in `env`, with its settings read from `env`; or every problem
 * found. `coreVariables` are the consumer's own names, which a module may not declare.
 * `D` is the kind's definition type: the shape is checked here, the parameter types cannot be.
 */
export async function readModule<D extends ModuleDefinition>(
  env: Env,
  reading: ModuleReading,
  coreVariables: ReadonlySet<string>,
): Promise<{ module: ReadModule<D> } | { problems: string[] }> {
  const spec = env[reading.place.variable]?.trim() || reading.fallback;
  const loaded = await importDefinition(spec, reading.place, isModuleDefinition, (module, path) =>
    reading.wrongExport(module, path, spec),
  );
  if ('problems' in loaded) return loaded;
  const { definition, path } = loaded;
  const name = definition.name ?? basename(path, extname(path));
  const parsed = parseSettings({ ...definition, name }, env, coreVariables, reading.kind);
  if ('problems' in parsed) return parsed;
  return {
    module: {
      spec,
      name,
      file: path,
      variables: Object.keys(definition.settings.shape),
      definition: definition as D,
      settings: parsed.settings,
    },
  };
}

/**
 * The module `spec` names in `place`, imported, and its default export if `isDefinition` says
 * it is one; or the problem, naming the variable (`wrongExport` says what is wrong with a
 * module whose default export is not a definition).
 */
async function importDefinition<D>(
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

function isModuleDefinition(value: unknown): value is ModuleDefinition {
  const d = value as Partial<ModuleDefinition> | undefined;
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

const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSPHRASE|KEY|CREDENTIAL/i;

/** How the problems name a kind's own variables. */
const WORDING: Record<ModuleKind, { article: string; prefix: string }> = {
  importer: { article: 'an', prefix: 'ERP_' },
  sink: { article: 'a', prefix: 'SINK_' },
};

/**
 * The module's variables parsed by its schema. Only the names it declares are read from `env`
 * (so a lenient schema never sees the rest); unset and empty both read as undefined. `kind`
 * words the problems.
 */
export function parseSettings(
  definition: { settings: z.ZodObject; name: string },
  env: Env,
  coreVariables: ReadonlySet<string>,
  kind: ModuleKind = 'importer',
): { settings: Record<string, unknown> } | { problems: string[] } {
  const names = Object.keys(definition.settings.shape);
  const taken = names.filter((name) => coreVariables.has(name));
  if (taken.length > 0) {
    const { article, prefix } = WORDING[kind];
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
