/**
 * The configuration of a command that imports (`npm start`, `npm run dev`, `npm run
 * reconcile`): the core's settings and the importer's, checked together, so that one report
 * names every problem, whichever side it is on. Entry points print the report and exit 2.
 */
import {
  type Config,
  ConfigError,
  coreVariableNames,
  type LoadConfigOptions,
  loadConfig,
} from './config.ts';
import { type LoadedImporter, readImporter } from './importer/index.ts';

export interface Setup {
  config: Readonly<Config>;
  importer: LoadedImporter;
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
  const importer = await readImporter(env, { coreVariables: coreVariableNames() });
  if ('problems' in importer) problems.push(...importer.problems);
  if (problems.length > 0 || config === undefined || !('importer' in importer)) {
    return { error: new ConfigError(problems).message };
  }
  return { setup: { config, importer: importer.importer } };
}
