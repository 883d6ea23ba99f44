/**
 * The configuration of a command that imports (`npm start`, `npm run dev`, `npm run
 * reconcile`): the core's settings, the importer's and the status sink's, checked together, so
 * that one report names every problem, whichever side it is on. Entry points print the report
 * and exit 2.
 */
import {
  type Config,
  ConfigError,
  coreVariableNames,
  type LoadConfigOptions,
  loadConfig,
} from './config.ts';
import { type LoadedImporter, readImporter } from './importer/index.ts';
import { type LoadedSink, readSink } from './sink/load-sink.ts';

export interface Setup {
  config: Readonly<Config>;
  importer: LoadedImporter;
  sink: LoadedSink;
}

type Env = Readonly<Record<string, string | undefined>>;

export async function readSetup(
  env: Env,
  options: LoadConfigOptions = {},
): Promise<{ setup: Setup } | { error: string }> {
  const problems: string[] = [];
  let config: Readonly<Config> | undefined;
  try {
    config = loadConfig(env, options);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  const coreVariables = coreVariableNames();
  const importer = await readImporter(env, { coreVariables });
  if ('problems' in importer) problems.push(...importer.problems);
  const sink = await readSink(env, { coreVariables });
  if ('problems' in sink) problems.push(...sink.problems);
  if (
    problems.length > 0 ||
    config === undefined ||
    !('importer' in importer) ||
    !('sink' in sink)
  ) {
    return { error: new ConfigError(problems).message };
  }
  return { setup: { config, importer: importer.importer, sink: sink.sink } };
}
