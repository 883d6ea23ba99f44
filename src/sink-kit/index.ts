/**
 * The sink contract kit (README.md beside this file): the cases, the runner the command line
 * uses, and the vitest helper for a forker's own tests.
 */
export {
  describeSinkContract,
  SinkContractError,
  type SinkContractOptions,
} from './describe-sink-contract.ts';
export {
  CASE_IDS,
  CASE_LIMIT_MS,
  KitConfigError,
  runSinkKit,
  type SinkKitOptions,
  type SinkKitSession,
  startSinkKit,
} from './kit.ts';
export { type CaseReport, formatTable, type SinkKitReport } from './report.ts';
export type { SinkTarget } from './target.ts';
