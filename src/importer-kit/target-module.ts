/**
 * A target controller from a module, for `npm run importer:check -- <importer> --target
 * <module>`: so that every case of the kit runs from the command line, not only from a vitest
 * file. The module's default export is an ImporterTarget (target.ts), or a function the kit
 * calls once when it starts, with the environment and --reject-invoice-no, resolving to one:
 *
 *   // my-erp-target.ts
 *   import { defineImporterTarget } from '../src/importer-kit/index.ts';
 *
 *   export default defineImporterTarget(async ({ env }) => ({
 *     outage: () => myErpProxy.refuseAll(env.MY_ERP_PROXY_URL),
 *     recover: () => myErpProxy.pass(env.MY_ERP_PROXY_URL),
 *     holds: (messageId) => countBookings(env.MY_ERP_URL, messageId),
 *   }));
 *
 * The module is a path, relative to the project's root or absolute (as IMPORTER_MODULE's paths
 * are); a module that cannot be loaded, or whose export is not a controller, is a
 * KitConfigError naming what is wrong (the command exits 2).
 */
import { isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KitConfigError } from '../check-runner/kit-config-error.ts';
import { PROJECT_ROOT } from '../consumer/modules/module-folder.ts';
import type { ImporterTarget } from './target.ts';

/** What a target module's function is given when the kit starts. */
export interface TargetContext {
  /** The environment the kit reads the importer's settings from (process.env and .env). */
  env: Readonly<Record<string, string | undefined>>;
  /** The invoice number the target must refuse for good (--reject-invoice-no), if given. */
  rejectInvoiceNo: string | undefined;
}

/** A target module's default export: a controller, or a function making one. */
export type ImporterTargetModule =
  | ImporterTarget
  | ((context: TargetContext) => ImporterTarget | Promise<ImporterTarget>);

/** Types a target module's default export; returns it unchanged. */
export function defineImporterTarget<T extends ImporterTargetModule>(target: T): T {
  return target;
}

const METHODS = ['outage', 'recover', 'hang', 'loseReply', 'holds', 'close'] as const;
const MEMBERS: ReadonlySet<string> = new Set([...METHODS, 'importerEnv']);

/** Loads `spec`'s default export and makes the controller; KitConfigError when it cannot. */
export async function loadImporterTarget(
  spec: string,
  context: TargetContext,
): Promise<ImporterTarget> {
  const fail = (problem: string): never => {
    throw new KitConfigError('The target controller', [`--target ${spec}: ${problem}`]);
  };
  const file = isAbsolute(spec) ? spec : join(PROJECT_ROOT, spec);
  let exported: unknown;
  try {
    exported = ((await import(pathToFileURL(file).href)) as { default?: unknown }).default;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fail(
      code === 'ERR_MODULE_NOT_FOUND' && String(error).includes(file)
        ? `no module at ${file} (a path from the project's root, or absolute)`
        : `the module does not load: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (exported === undefined) {
    return fail('the module has no default export (an ImporterTarget, or a function making one)');
  }
  const target =
    typeof exported === 'function'
      ? await (exported as (c: TargetContext) => unknown)(context)
      : exported;
  const problems = targetProblems(target);
  if (problems.length > 0) {
    await closeQuietly(target);
    throw new KitConfigError(
      'The target controller',
      problems.map((p) => `--target ${spec}: ${p}`),
    );
  }
  return target as ImporterTarget;
}

/** What is wrong with a controller: a member that is not a function, one the kit does not know. */
function targetProblems(target: unknown): string[] {
  if (typeof target !== 'object' || target === null) {
    return [`the controller is ${target === null ? 'null' : typeof target}, not an object`];
  }
  const problems: string[] = [];
  for (const [name, value] of Object.entries(target)) {
    if (!MEMBERS.has(name)) {
      problems.push(
        `unknown member ${name} (a controller has ${[...METHODS, 'importerEnv'].join(', ')})`,
      );
    } else if (name === 'importerEnv') {
      const entries = typeof value === 'object' && value !== null ? Object.values(value) : [null];
      if (!entries.every((v) => typeof v === 'string')) {
        problems.push('importerEnv must be an object of strings (the importer settings)');
      }
    } else if (typeof value !== 'function') {
      problems.push(`${name} must be a function (got ${typeof value})`);
    }
  }
  if (
    !METHODS.some(
      (m) => m !== 'close' && typeof (target as Record<string, unknown>)[m] === 'function',
    )
  ) {
    problems.push(`the controller has none of ${METHODS.filter((m) => m !== 'close').join(', ')}`);
  }
  return problems;
}

async function closeQuietly(target: unknown): Promise<void> {
  const close = (target as { close?: unknown } | null)?.close;
  if (typeof close === 'function') await Promise.resolve(close.call(target)).catch(() => {});
}
