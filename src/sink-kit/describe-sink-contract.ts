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
import {
  describeCases,
  resolveOptions,
  type WithDeferred,
} from '../check-runner/describe-cases.ts';
import { CASE_IDS, type SinkKitOptions, startSinkKit } from './kit.ts';

/**
 * The kit's options (kit.ts); `env` and `target` may be functions, for what the file's own
 * beforeAll sets up.
 */
export type SinkContractOptions = WithDeferred<SinkKitOptions>;

/** A case that failed: its report, evidence included, as the test's error. */
export class SinkContractError extends Error {
  override readonly name = 'SinkContractError';
}

export function describeSinkContract(options: SinkContractOptions): void {
  describeCases({
    title: `status sink contract: ${options.name ?? options.sink ?? 'SINK_MODULE'}`,
    start: () => startSinkKit(resolveOptions<SinkKitOptions>(options)),
    ids: CASE_IDS,
    // vitest's testTimeout bounds a case, as any test of the project (the kit's own bound,
    // CASE_LIMIT_MS, is for the command line, where nothing else does).
    failure: (report) => new SinkContractError(report),
    notStarted: 'the sink kit did not start',
  });
}
