export { createImporter } from './create-importer.ts';
export type { FileImporterOptions, Manifest } from './file-importer.ts';
export { createFileImporter } from './file-importer.ts';
export type { ImportDocument, Importer, ImportInput, ImportResult } from './importer.ts';
export { fileDocument, ImportTimeoutError, PermanentImportError } from './importer.ts';
export { type CreateImporter, ImporterModuleError, loadImporter } from './load-importer.ts';
