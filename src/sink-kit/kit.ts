/**
 * The sink contract kit: resolves a status sink as every command does (SINK_MODULE, its
 * settings checked), or takes a factory of one, and runs each case against fresh instances of
 * it, with the consumer and the embedded simulator running for real in a sandbox of their own
 * (sandbox.ts) that each case starts and removes.
 *
 * `startSinkKit` opens a session whose cases run one by one (the vitest helper runs one per
 * `it`); `runSinkKit` runs them all and returns the report (the command line prints it).
 */
import { type Logger, pino } from 'pino';
import { describeError } from '../check-runner/error-line.ts';
import { KitConfigError } from '../check-runner/kit-config-error.ts';
import { findCase, runCase, runEveryCase } from '../check-runner/run-case.ts';
import { coreVariableNames } from '../consumer/config.ts';
import { outcomeAt } from '../consumer/sink/batch-outcomes.ts';
import { readSink, type StatusNotice, type StatusSink } from '../consumer/sink/index.ts';
import type { SinkKitContext } from './case.ts';
import { SINK_KIT_CASES } from './cases.ts';
import { type CaseReport, type SinkKitReport, summarize } from './report.ts';
import type { SinkTarget } from './target.ts';

/** The sink could not be resolved: its module, or its settings (one line each). */
export { KitConfigError };

/** The case ids, in report order: docs and tests name them. */
export const CASE_IDS: readonly string[] = SINK_KIT_CASES.map((c) => c.id);

/**
 * How long one case may take. Each wait in a case is bounded already (the outbox drained in
 * 20 s, a refusal in 10 s); this catches a deliver() or a controller that never answers.
 */
export const CASE_LIMIT_MS = 60_000;

export interface SinkKitOptions {
  /**
   * The sink, as SINK_MODULE names it: a module of src/sinks/ (`journal`, `erp-http`) or a
   * path, relative to the project's root or absolute.
   * @default env.SINK_MODULE, else `journal`
   */
  sink?: string;
  /**
   * Where the sink's own settings are read (only the variables its schema names), e.g.
   * `{ SINK_ERP_URL, SINK_ERP_TOKEN }` or `process.env`.
   * @default {}
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Instead of `sink`: makes a new instance each time it is called (a new process), e.g. a
   * module's sink wrapped by a test. `sink` and `env` are not read then.
   * @default the sink `sink` names, created as the consumer creates it
   */
  createSink?: () => Promise<StatusSink>;
  /** What the report calls a sink made by createSink. @default `createSink()` */
  name?: string;
  /**
   * A controller of the sink's target (target.ts): what it holds, outages. Without it the
   * cases that need one are not checked.
   * @default none
   */
  target?: SinkTarget;
  /** Given to the sink's create() and to the consumer in the sandbox. @default silent */
  logger?: Logger;
}

export interface SinkKitSession {
  sink: SinkKitReport['sink'];
  /** When the session started, ms since the epoch. */
  startedAt: number;
  /** Runs one case by id; a case never throws: what went wrong is its evidence. */
  run(id: string): Promise<CaseReport>;
  /** Nothing stays open between cases; here for the vitest helper's symmetry. */
  close(): Promise<void>;
}

/** Loads the sink (KitConfigError naming every problem) and opens a session. */
export async function startSinkKit(options: SinkKitOptions = {}): Promise<SinkKitSession> {
  const startedAt = Date.now();
  const logger = options.logger ?? pino({ level: 'silent' });
  const { sink, create } = await resolveSink(options, logger);
  // What the sink's instances accepted: the evidence when the target cannot say what it holds.
  const accepted: StatusNotice[] = [];
  const received = options.target?.received;
  const context: SinkKitContext = {
    target: options.target,
    logger,
    async instance() {
      const created = await create();
      const many = created.deliverMany;
      return {
        async deliver(notice, delivery) {
          await created.deliver(notice, delivery);
          accepted.push(notice);
        },
        // Only when the sink has one: the consumer calls it instead of deliver() then.
        ...(many === undefined
          ? {}
          : {
              async deliverMany(notices, delivery) {
                const outcomes = await many.call(created, notices, delivery);
                for (const [i, notice] of notices.entries()) {
                  if (outcomeAt(outcomes, i).status === 'fulfilled') accepted.push(notice);
                }
                return outcomes;
              },
            }),
        close: async () => created.close?.(),
      };
    },
    received: async () =>
      received === undefined ? accepted : [...(await received.call(options.target))],
    holder: received === undefined ? 'the sink (what its deliver() resolved for)' : 'the target',
  };
  return {
    sink,
    startedAt,
    run: (id) =>
      runCase(findCase(SINK_KIT_CASES, id, 'sink kit'), context, CASE_LIMIT_MS, describeError),
    close: async () => undefined,
  };
}

/** Runs every case and returns the report; KitConfigError when the sink cannot load. */
export async function runSinkKit(options: SinkKitOptions = {}): Promise<SinkKitReport> {
  const session = await startSinkKit(options);
  return summarize(await runEveryCase(session, CASE_IDS), session);
}

async function resolveSink(
  options: SinkKitOptions,
  logger: Logger,
): Promise<{ sink: SinkKitReport['sink']; create: () => Promise<StatusSink> }> {
  if (options.createSink !== undefined) {
    const name = options.name ?? 'createSink()';
    return { sink: { name }, create: options.createSink };
  }
  const env = options.env ?? {};
  const spec = options.sink ?? env.SINK_MODULE;
  const read = await readSink(
    { ...env, SINK_MODULE: spec },
    { coreVariables: coreVariableNames() },
  );
  if ('problems' in read) throw new KitConfigError('The sink', read.problems);
  const loaded = read.sink;
  return {
    sink: { spec: loaded.spec, name: loaded.name, file: loaded.file, describe: loaded.describe() },
    create: () => loaded.create({ logger }),
  };
}
