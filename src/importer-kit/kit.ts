/**
 * The importer contract kit: resolves an importer as every command does (IMPORTER_MODULE, its
 * settings checked), starts the embedded simulator on a free loopback port, and runs each case
 * against fresh instances of the importer with real inbound messages, fetched as the consumer
 * fetches them (in memory, or a large one into a spool folder under a temporary DOCUMENTS_DIR,
 * removed at the end).
 *
 * `startImporterKit` opens a session whose cases run one by one (the vitest helper runs one per
 * `it`); `runImporterKit` runs them all and returns the report (the command line prints it).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Logger, pino } from 'pino';
import { KitConfigError } from '../check-runner/kit-config-error.ts';
import { findCase, runCase, runEveryCase } from '../check-runner/run-case.ts';
import { type ApiClient, createApiClient } from '../consumer/api/index.ts';
import { coreVariableNames, spoolDirOf } from '../consumer/config.ts';
import { type LoadedImporter, readImporter } from '../consumer/importer/index.ts';
import type { KitCase, KitContext } from './case.ts';
import {
  importConcurrent,
  importDuplicateFromTarget,
  importForget,
  importLostReply,
  importOnce,
  importPermanent,
} from './contract-cases.ts';
import { importDocumentTypes, importLargeDocument } from './document-cases.ts';
import { importDeadline, importTransient } from './failure-cases.ts';
import { describeError, prepareCall } from './import-call.ts';
import { type CaseReport, type KitReport, summarize } from './report.ts';
import { type KitSimulator, startKitSimulator } from './simulator.ts';
import type { ImporterTarget } from './target.ts';
import { loadImporterTarget } from './target-module.ts';

/** The importer could not be resolved: its module, or its settings (one line each). */
export { KitConfigError };

/** Every case, in report order. */
export const KIT_CASES: readonly KitCase[] = [
  importOnce,
  importLostReply,
  importDuplicateFromTarget,
  importPermanent,
  importTransient,
  importDeadline,
  importLargeDocument,
  importDocumentTypes,
  importConcurrent,
  importForget,
];

/** How long an ordinary import() may take (ImporterKitOptions.callTimeoutMs). */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/** The case ids, in report order: docs and tests name them. */
export const CASE_IDS: readonly string[] = KIT_CASES.map((c) => c.id);

export interface ImporterKitOptions {
  /**
   * The importer, as IMPORTER_MODULE names it: a module of src/importers/ (`file`, `erp-http`)
   * or a path, relative to the project's root or absolute.
   * @default env.IMPORTER_MODULE, else `file`
   */
  importer?: string;
  /**
   * Where the importer's own settings are read (only the variables its schema names), e.g.
   * `{ ERP_BASE_URL, ERP_TOKEN }` or `process.env`.
   * @default {}
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * An invoice number the importer's target refuses for good; without it `import.permanent`
   * is not checked.
   * @default none
   */
  rejectInvoiceNo?: string;
  /**
   * A controller of the importer's target (target.ts): outages, hangs, lost replies, and how
   * many records it holds of a message. Without it the cases that need one are not checked.
   * Its `importerEnv` is taken over `env`; its `close()` is called when the kit ends.
   * @default none
   */
  target?: ImporterTarget;
  /**
   * A module whose default export is a target controller or a function making one
   * (target-module.ts), loaded when the kit starts: what `--target` names. A path from the
   * project's root, or absolute; instead of `target`.
   * @default none
   */
  targetModule?: string;
  /**
   * How long an ordinary import() may take before the kit stops waiting for it (the signal the
   * call gets aborts then too).
   * @default 30000
   */
  callTimeoutMs?: number;
  /** Given to the importer's create(). @default silent */
  logger?: Logger;
}

export interface KitSession {
  importer: KitReport['importer'];
  /** The target module (`--target`) as named, `given` for a controller passed in, or null. */
  target: string | null;
  /** The simulator's URL. */
  simulator: string;
  /** When the session started, ms since the epoch. */
  startedAt: number;
  /** Runs one case by id; a case never throws: what went wrong is its evidence. */
  run(id: string): Promise<CaseReport>;
  /** Stops the simulator and removes the temporary folder. */
  close(): Promise<void>;
}

export async function startImporterKit(options: ImporterKitOptions = {}): Promise<KitSession> {
  const startedAt = Date.now();
  const target = await startTarget(options);
  let loaded: LoadedImporter;
  try {
    loaded = await loadImporter(options, target);
  } catch (error) {
    await target?.close?.();
    throw error;
  }
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const logger = options.logger ?? pino({ level: 'silent' });

  const dir = await mkdtemp(join(tmpdir(), 'importer-kit-'));
  let simulator: KitSimulator | undefined;
  let api: ApiClient | undefined;
  const close = async () => {
    await api?.close();
    await simulator?.close();
    await target?.close?.();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const documentsDir = join(dir, 'documents');
    await mkdir(documentsDir);
    simulator = await startKitSimulator();
    const sim = simulator;
    const client = createApiClient({
      baseUrl: sim.url,
      token: sim.apiToken,
      spoolDir: spoolDirOf({ documentsDir }),
    });
    api = client;
    const context: KitContext = {
      rejectInvoiceNo: options.rejectInvoiceNo,
      target,
      simulator: sim,
      callTimeoutMs,
      instance: () => loaded.create({ logger, documentsDir }),
      inbound: (request = {}) => sim.inbound(request),
      prepare: (messageId, call) =>
        prepareCall(client, messageId, { waitMs: callTimeoutMs, ...call }),
      async call(importer, messageId, call) {
        const prepared = await context.prepare(messageId, call);
        return prepared.run(importer);
      },
    };
    const importer = {
      spec: loaded.spec,
      name: loaded.name,
      file: loaded.file,
      describe: loaded.describe({ documentsDir }),
    };
    return {
      importer,
      target: options.targetModule ?? (target === undefined ? null : 'given'),
      simulator: sim.url,
      startedAt,
      run: async (id) =>
        runCase(
          findCase(KIT_CASES, id, 'importer kit'),
          context,
          10 * callTimeoutMs,
          describeError,
        ),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The controller: options.target, or made by the module options.targetModule names. */
async function startTarget(options: ImporterKitOptions): Promise<ImporterTarget | undefined> {
  if (options.targetModule === undefined) return options.target;
  if (options.target !== undefined) {
    throw new TypeError('ImporterKitOptions: give target or targetModule, not both');
  }
  return loadImporterTarget(options.targetModule, {
    env: options.env ?? {},
    rejectInvoiceNo: options.rejectInvoiceNo,
  });
}

/** The importer, as every command resolves it, with the target's importerEnv over env. */
async function loadImporter(
  options: ImporterKitOptions,
  target: ImporterTarget | undefined,
): Promise<LoadedImporter> {
  const env = { ...options.env, ...target?.importerEnv };
  const spec = options.importer ?? env.IMPORTER_MODULE;
  const read = await readImporter(
    { ...env, IMPORTER_MODULE: spec },
    { coreVariables: coreVariableNames() },
  );
  if ('problems' in read) throw new KitConfigError('The importer', read.problems);
  return read.importer;
}

/** Runs every case and returns the report; KitConfigError when the importer cannot load. */
export async function runImporterKit(options: ImporterKitOptions = {}): Promise<KitReport> {
  const session = await startImporterKit(options);
  return summarize(await runEveryCase(session, CASE_IDS), session);
}
