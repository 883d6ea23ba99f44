/**
 * Everything a status sink module needs, from one place (README.md beside this file):
 * defineStatusSink and zod for its settings, the sink contract, the notices it receives and the
 * types of their fields, the text helpers for an error that quotes another system's answer, and
 * how SINK_MODULE is read, for a command or a test that loads a sink as the consumer does.
 */
export { z } from 'zod';
export type { StatusKind, ValidationResult } from '../../protocol/index.ts';
export type {
  StatusChangeNotice,
  StatusNotice,
  SubmissionNotice,
  SubmissionResolution,
} from '../store/status-notice.ts';
// For a sink that puts another system's answer into an error, as sinks/erp-http.ts does.
export { printableText, REMOTE_TEXT_LIMIT } from '../text/error-text.ts';
export { readBounded } from '../text/read-bounded.ts';
export { redactUserinfo } from '../text/redact-userinfo.ts';
export {
  type DeliveryOptions,
  defineStatusSink,
  type NoticeOutcome,
  type SinkContext,
  type SinkDefinition,
  type StatusSink,
} from './define-sink.ts';
export {
  DEFAULT_SINK,
  type LoadedSink,
  readSink,
  SINK_VARIABLE,
  SinkModuleError,
  sinkNames,
} from './load-sink.ts';
