/**
 * The importer contract kit (README.md beside this file): the cases, the runner the command
 * line uses, and the vitest helper for a forker's own tests.
 */

export {
  describeImporterContract,
  ImporterContractError,
  type ImporterContractOptions,
} from './describe-importer-contract.ts';
export {
  CASE_IDS,
  DEFAULT_CALL_TIMEOUT_MS,
  type ImporterKitOptions,
  KitConfigError,
  type KitSession,
  runImporterKit,
  startImporterKit,
} from './kit.ts';
export type { CaseReport, CaseResult, KitReport } from './report.ts';
export { formatCase, formatTable } from './report.ts';
export type { ImporterTarget } from './target.ts';
export {
  defineImporterTarget,
  type ImporterTargetModule,
  loadImporterTarget,
  type TargetContext,
} from './target-module.ts';
