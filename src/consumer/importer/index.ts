/**
 * Everything an importer module needs, from one place: defineImporter and zod for its
 * settings, the importer contract and its errors, the file importer to build on, and the
 * types of what it receives (the descriptor, the transaction JSON of each route, statuses).
 */
export { z } from 'zod';
export type {
  AcknowledgementResponseBody,
  DeliveryStatus,
  DocumentEntry,
  DocumentTransaction,
  InvoiceAddress,
  InvoiceCustomer,
  InvoiceData,
  InvoiceLine,
  InvoiceSupplier,
  KnownAction,
  LifecycleStatus,
  MessageAction,
  MessageDescriptor,
  MessageEvent,
  Party,
  StatusAction,
  StatusChange,
  StatusEvent,
  StatusKind,
  StatusProperties,
  StatusPropertyName,
  SubmitInvoiceBody,
  TaxReportingStatus,
  TransactionJson,
  TransactionJsonByAction,
  Transfer,
  ValidationResult,
  ValidationStatus,
  WebhookEnvelope,
} from '../../protocol/index.ts';
// For an importer that puts another system's answer into an error, as importers/erp-http.ts does.
export { printableText, REMOTE_TEXT_LIMIT } from '../text/error-text.ts';
export { readBounded } from '../text/read-bounded.ts';
export {
  defineImporter,
  type ImporterContext,
  type ImporterDefinition,
  type SettingsSchema,
} from './define-importer.ts';
export type { FileImporterOptions, Manifest } from './file-importer.ts';
export { createFileImporter, documentFolder } from './file-importer.ts';
export { fileDocument, memoryDocument } from './import-documents.ts';
export type {
  ImportDocument,
  ImportedResult,
  Importer,
  ImportInput,
  ImportResult,
  NotBookedResult,
} from './importer.ts';
export { ImportTimeoutError, PermanentImportError, recordedLocation } from './importer.ts';
export {
  DEFAULT_IMPORTER,
  IMPORTER_VARIABLE,
  ImporterModuleError,
  importerNames,
  type LoadedImporter,
  parseSettings,
  readImporter,
} from './load-importer.ts';
