/**
 * Finds the status sink a process uses (SINK_MODULE), checks its module and parses its own
 * settings: the importer's way (importer/load-importer.ts), with the same finding and parsing
 * (../modules/), so a sink is named, found and configured the way an importer is.
 *
 * SINK_MODULE is either a name or a path:
 *   - a name (`journal`, `erp-http`, `my-erp`) is a module of src/sinks/: `<name>.ts` when
 *     running from source, the compiled `dist/src/sinks/<name>.js` in the image;
 *   - a path (`./lib/sink.ts`, `/opt/sink.js`) is resolved against the project's root, never
 *     the working directory; a `.ts` path under the project also finds its compiled `.js`.
 * Unset, it is `journal` (the default sink: one JSON line per status change in a file).
 *
 * What the module says and does passes its redaction (modules/module-redaction.ts), as an
 * importer's does: describe(), the logger it is given, and what create(), deliver() and close()
 * throw, so an ERP that echoes the token puts it in no notice's lastError and no log line.
 */
import type { Logger } from 'pino';
import { moduleFolder, moduleNames } from '../modules/module-folder.ts';
import type { ModuleRedaction } from '../modules/module-redaction.ts';
import { type LoadedModule, type ModuleReading, readModule } from '../modules/read-module.ts';
import type { NoticeOutcome, SinkDefinition, StatusSink } from './define-sink.ts';

/** SINK_MODULE when it is unset. */
export const DEFAULT_SINK = 'journal';

/** The variable that names the status sink. */
export const SINK_VARIABLE = 'SINK_MODULE';

const SINKS: ModuleReading = {
  kind: 'sink',
  place: moduleFolder(SINK_VARIABLE, 'sinks'),
  fallback: DEFAULT_SINK,
  wrongExport: (_module, path, spec) =>
    `${SINK_VARIABLE} ${spec}: ${path} has no default export made with defineStatusSink({ settings, describe, create }) (src/consumer/sink/define-sink.ts)`,
};

/** A sink whose module loaded and whose settings are valid, ready to create. */
export interface LoadedSink extends LoadedModule {
  /** Where status changes go, from the definition's describe(), its secrets hidden. */
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
  const read = await readModule<SinkDefinition>(env, SINKS, options.coreVariables);
  if ('problems' in read) return read;
  const { definition, settings, redaction, ...loaded } = read.module;
  const { name, file } = loaded;
  return {
    sink: {
      ...loaded,
      describe: () => redaction.text(definition.describe(settings)),
      async create({ logger }) {
        const sink = await redaction.guard(() =>
          definition.create({
            settings,
            logger: redaction.logger(logger.child({ sink: name })),
          }),
        );
        if (typeof sink?.deliver !== 'function') {
          throw new SinkModuleError(
            `sink ${name} (${file}): create() did not return an object with a deliver() method`,
          );
        }
        if (sink.close !== undefined && typeof sink.close !== 'function') {
          throw new SinkModuleError(`sink ${name} (${file}): close is not a function`);
        }
        if (sink.deliverMany !== undefined && typeof sink.deliverMany !== 'function') {
          throw new SinkModuleError(`sink ${name} (${file}): deliverMany is not a function`);
        }
        return redactingSink(sink, redaction);
      },
    },
  };
}

/**
 * The sink as the consumer uses it: what its calls throw, and the reasons deliverMany() gives
 * for the notices it refused, are redacted (and their messages bounded).
 */
function redactingSink(sink: StatusSink, redaction: ModuleRedaction): StatusSink {
  const { close, deliverMany } = sink;
  return {
    deliver: (notice, options) => redaction.guard(() => sink.deliver(notice, options)),
    ...(deliverMany === undefined
      ? {}
      : {
          deliverMany: async (notices, options) => {
            const outcomes = await redaction.guard(() => deliverMany.call(sink, notices, options));
            return Array.isArray(outcomes)
              ? outcomes.map((outcome: NoticeOutcome) =>
                  outcome?.status === 'rejected'
                    ? { status: 'rejected' as const, reason: redaction.error(outcome.reason) }
                    : outcome,
                )
              : outcomes;
          },
        }),
    ...(close === undefined ? {} : { close: () => redaction.guard(() => close.call(sink)) }),
  };
}

/** The built-in and forked sinks of src/sinks/, by name. */
export function sinkNames(): string[] {
  return moduleNames(SINKS.place);
}
