/**
 * The kit's cases as vitest tests, for a forker's own test file:
 *
 *   import { describeSinkContract } from '../src/sink-kit/index.ts';
 *
 *   describeSinkContract({
 *     sink: 'my-erp',
 *     env: { MY_ERP_STATUS_URL: 'http://127.0.0.1:4100' },
 *     target: { received: () => myErp.statusChanges(), outage, recover },
 *   });
 *
 * registers a `describe` with one `it` per case, named by its id: a case that fails throws its
 * evidence, a case that cannot be checked is skipped with the reason. `createSink` replaces
 * `sink` and `env` for a sink a test builds itself (a new instance each call: a new process).
 * `env` and `target` may be functions, called in the describe's beforeAll, for what is known
 * only once the file's own beforeAll ran (a stand-in's port).
 */
import { type Deferred, describeCases, resolveDeferred } from '../check-runner/describe-cases.ts';
import { CASE_IDS, type SinkKitOptions, startSinkKit } from './kit.ts';

export interface SinkContractOptions extends Omit<SinkKitOptions, 'env' | 'target'> {
  /** The sink's settings, or a function giving them. @default {} */
  env?: Deferred<NonNullable<SinkKitOptions['env']>>;
  /** A controller of the sink's target (target.ts), or a function giving it. @default none */
  target?: Deferred<NonNullable<SinkKitOptions['target']>>;
}

/** A case that failed: its report, evidence included, as the test's error. */
export class SinkContractError extends Error {
  override readonly name = 'SinkContractError';
}

export function describeSinkContract(options: SinkContractOptions): void {
  const { env, target, ...rest } = options;
  describeCases({
    title: `status sink contract: ${options.name ?? options.sink ?? 'SINK_MODULE'}`,
    start() {
      const resolvedEnv = env === undefined ? undefined : resolveDeferred(env);
      const resolvedTarget = target === undefined ? undefined : resolveDeferred(target);
      return startSinkKit({
        ...rest,
        ...(resolvedEnv === undefined ? {} : { env: resolvedEnv }),
        ...(resolvedTarget === undefined ? {} : { target: resolvedTarget }),
      });
    },
    ids: CASE_IDS,
    // vitest's testTimeout bounds a case, as any test of the project (the kit's own bound,
    // CASE_LIMIT_MS, is for the command line, where nothing else does).
    failure: (report) => new SinkContractError(report),
    notStarted: 'the sink kit did not start',
  });
}
