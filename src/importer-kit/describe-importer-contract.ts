/**
 * The kit's cases as vitest tests, for a forker's own test file:
 *
 *   import { describeImporterContract } from '../src/importer-kit/index.ts';
 *
 *   describeImporterContract({
 *     importer: 'my-erp',
 *     env: { MY_ERP_URL: 'http://127.0.0.1:4100', MY_ERP_TOKEN: 'test' },
 *     rejectInvoiceNo: 'REFUSED-1',
 *   });
 *
 * registers a `describe` with one `it` per case, named by its id: a case that fails throws its
 * evidence, a case that cannot be checked is skipped with the reason. The simulator starts in
 * the describe's beforeAll; `env` and `target` may be functions, called then, for what is known
 * only once the file's own beforeAll ran (a stand-in's port).
 */
import {
  type Deferred,
  describeCases,
  resolveOptions,
  type WithDeferred,
} from '../check-runner/describe-cases.ts';
import {
  CASE_IDS,
  DEFAULT_CALL_TIMEOUT_MS,
  type ImporterKitOptions,
  startImporterKit,
} from './kit.ts';

export type { Deferred };

export interface ImporterContractOptions extends WithDeferred<ImporterKitOptions> {
  /** What the describe is called. @default `importer contract: <importer>` */
  name?: string;
}

/** A case that failed: its report, evidence included, as the test's error. */
export class ImporterContractError extends Error {
  override readonly name = 'ImporterContractError';
}

export function describeImporterContract(options: ImporterContractOptions): void {
  const { name, ...rest } = options;
  describeCases({
    title: name ?? `importer contract: ${options.importer ?? 'IMPORTER_MODULE'}`,
    // `env` and `target` may be functions, for what the file's own beforeAll sets up.
    start: () => startImporterKit(resolveOptions<ImporterKitOptions>(rest)),
    ids: CASE_IDS,
    // The kit bounds a case at ten call timeouts; vitest's own bound comes after it.
    caseTimeoutMs: 10 * (options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS) + 5_000,
    failure: (report) => new ImporterContractError(report),
    notStarted: 'the importer kit did not start',
  });
}
