/**
 * Finds the status sink a process uses (SINK_MODULE), checks its module and parses its own
 * settings: the mirror of importer/load-importer.ts, whose module finding and settings parsing
 * it shares, so a sink is named, found and configured the way an importer is.
 *
 * SINK_MODULE is either a name or a path:
 *   - a name (`journal`, `erp-http`, `my-erp`) is a module of src/sinks/: `<name>.ts` when
 *     running from source, the compiled `dist/src/sinks/<name>.js` in the image;
 *   - a path (`./lib/sink.ts`, `/opt/sink.js`) is resolved against the project's root, never
 *     the working directory; a `.ts` path under the project also finds its compiled `.js`.
 * Unset, it is `journal` (the default sink: one JSON line per status change in a file).
 */
import { basename, extname } from 'node:path';
import type { Logger } from 'pino';
import {
  importDefinition,
  moduleFolder,
  moduleNames,
  parseSettings,
} from '../importer/load-importer.ts';
import type { SinkDefinition, StatusSink } from './define-sink.ts';

/** SINK_MODULE when it is unset. */
export const DEFAULT_SINK = 'journal';

/** The variable that names the status sink. */
export const SINK_VARIABLE = 'SINK_MODULE';

const SINKS = moduleFolder(SINK_VARIABLE, 'sinks');

/** A sink whose module loaded and whose settings are valid, ready to create. */
export interface LoadedSink {
  /** As SINK_MODULE named it (`journal` when unset). */
  spec: string;
  /** The definition's name, or the module's file name. */
  name: string;
  /** The module's file. */
  file: string;
  /** The environment variables its settings read (its schema's names). */
  variables: readonly string[];
  /** Where status changes go, from the definition's describe(). Never a secret. */
  describe(): string;
  /** Builds the sink (once per process); its logger is `logger` with `sink: <name>`. */
  create(deps: { logger: Logger }): Promise<StatusSink>;
}

/** The sink's module misbehaved at creation (a factory that returned no sink). */
export class SinkModuleError extends Error {
  override readonly name = 'SinkModuleError';
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The sink SINK_MODULE names, with its settings read from `env`; or every problem found, each
 * naming the variable, for the caller to report with the core configuration's (exit 2).
 * `coreVariables` are the consumer's own names, which a sink may not declare.
 */
export async function readSink(
  env: Env,
  options: { coreVariables: ReadonlySet<string> },
): Promise<{ sink: LoadedSink } | { problems: string[] }> {
  const spec = env[SINK_VARIABLE]?.trim() || DEFAULT_SINK;
  const loaded = await importDefinition(
    spec,
    SINKS,
    isDefinition,
    (_module, path) =>
      `${SINK_VARIABLE} ${spec}: ${path} has no default export made with defineStatusSink({ settings, describe, create }) (src/consumer/sink/define-sink.ts)`,
  );
  if ('problems' in loaded) return loaded;
  const { definition, path } = loaded;
  const name = definition.name ?? basename(path, extname(path));
  const parsed = parseSettings({ ...definition, name }, env, options.coreVariables, 'sink');
  if ('problems' in parsed) return parsed;
  const { settings } = parsed;
  return {
    sink: {
      spec,
      name,
      file: path,
      variables: Object.keys(definition.settings.shape),
      describe: () => definition.describe(settings),
      async create({ logger }) {
        const sink = await definition.create({ settings, logger: logger.child({ sink: name }) });
        if (typeof sink?.deliver !== 'function') {
          throw new SinkModuleError(
            `sink ${name} (${path}): create() did not return an object with a deliver() method`,
          );
        }
        if (sink.close !== undefined && typeof sink.close !== 'function') {
          throw new SinkModuleError(`sink ${name} (${path}): close is not a function`);
        }
        return sink;
      },
    },
  };
}

/** The built-in and forked sinks of src/sinks/, by name. */
export function sinkNames(): string[] {
  return moduleNames(SINKS);
}

function isDefinition(value: unknown): value is SinkDefinition {
  const d = value as Partial<SinkDefinition> | undefined;
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
