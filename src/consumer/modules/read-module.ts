/**
 * Reads a fork module, the importer or the status sink, from the environment: the module its
 * variable names (module-folder.ts), imported, its default export checked, and its own
 * settings parsed by its zod schema. Every problem names the variable, so that the caller
 * reports them with the core configuration's, in one list (exit 2).
 *
 * What an importer and a sink have in common is their definition's shape, `{ name?, settings,
 * secrets?, describe, create }`, and the redaction of everything that comes out of them
 * (module-redaction.ts), made here from their settings; what `describe` and `create` take and
 * give is theirs (importer/load-importer.ts, sink/load-sink.ts).
 */
import { basename, extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { redactUserinfo } from '../text/redact-userinfo.ts';
import { findModule, type ModuleFolder } from './module-folder.ts';
import { createModuleRedaction, type ModuleRedaction } from './module-redaction.ts';
import { isSecretSetting, secretsProblems, secretValues } from './module-secrets.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** The kinds of fork module: they word the problems. */
export type ModuleKind = 'importer' | 'sink';

/** The shape every fork module's default export has (define-importer.ts, define-sink.ts). */
export interface ModuleDefinition {
  name?: string;
  settings: z.ZodObject;
  /** Settings whose values are secrets, besides those named so (module-secrets.ts). */
  secrets?: readonly string[];
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

/** A module read: what it says of itself, its definition, its parsed settings, its redaction. */
export interface ReadModule<D extends ModuleDefinition> extends LoadedModule {
  definition: D;
  settings: Record<string, unknown>;
  /** What everything that comes out of the module passes (module-redaction.ts). */
  redaction: ModuleRedaction;
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
  const variables = Object.keys(definition.settings.shape);
  const secrets = secretValues(settingsInput(variables, env), definition.secrets ?? []);
  return {
    module: {
      spec,
      name,
      file: path,
      variables,
      definition: definition as D,
      settings: parsed.settings,
      redaction: createModuleRedaction(secrets),
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
    (d.secrets === undefined ||
      (Array.isArray(d.secrets) && d.secrets.every((name) => typeof name === 'string'))) &&
    typeof d.settings?.safeParse === 'function' &&
    typeof d.settings.shape === 'object'
  );
}

/** How the problems name a kind's own variables. */
const WORDING: Record<ModuleKind, { article: string; prefix: string }> = {
  importer: { article: 'an', prefix: 'ERP_' },
  sink: { article: 'a', prefix: 'SINK_' },
};

/**
 * The module's variables parsed by its schema. Only the names it declares are read from `env`
 * (so a lenient schema never sees the rest); unset and empty both read as undefined. `kind`
 * words the problems, which never show a secret: a secret setting's value is not echoed, and
 * any other value, or a message of the schema, has its URL userinfo and the module's secrets
 * hidden (module-secrets.ts).
 */
export function parseSettings(
  definition: { settings: z.ZodObject; name: string; secrets?: readonly string[] },
  env: Env,
  coreVariables: ReadonlySet<string>,
  kind: ModuleKind = 'importer',
): { settings: Record<string, unknown> } | { problems: string[] } {
  const names = Object.keys(definition.settings.shape);
  const who = `${kind} ${definition.name}`;
  const declared = definition.secrets ?? [];
  const taken = names.filter((name) => coreVariables.has(name));
  if (taken.length > 0) {
    const { article, prefix } = WORDING[kind];
    return {
      problems: taken.map(
        (name) =>
          `${who} declares ${name}, a variable of the consumer itself: ${article} ${kind} reads variables of its own (use a prefix such as ${prefix})`,
      ),
    };
  }
  const misdeclared = secretsProblems(declared, names, who);
  if (misdeclared.length > 0) return { problems: misdeclared };
  const input = settingsInput(names, env);
  const result = definition.settings.safeParse(input);
  if (result.success) return { settings: result.data as Record<string, unknown> };
  const redact = createModuleRedaction(secretValues(input, declared)).text;
  const problems = result.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? '');
    const value = input[name];
    if (value === undefined) return `${name} is required (${who})`;
    // The value may be a secret: name the variable, never echo it.
    const shown = isSecretSetting(name, declared)
      ? ''
      : ` (got ${JSON.stringify(redactUserinfo(value).slice(0, 200))})`;
    return redact(`${name}: ${issue.message} (${who})${shown}`);
  });
  return { problems: [...new Set(problems)] };
}

/** The module's variables as set in `env`, trimmed; unset and empty both undefined. */
function settingsInput(names: readonly string[], env: Env): Record<string, string | undefined> {
  const input: Record<string, string | undefined> = {};
  for (const name of names) {
    const value = env[name]?.trim();
    input[name] = value === '' ? undefined : value;
  }
  return input;
}
