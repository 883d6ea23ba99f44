export { createImporter } from './create-importer.ts';
export type { FileImporterOptions, Manifest } from './file-importer.ts';
export { createFileImporter } from './file-importer.ts';
export type { ImportDocument, Importer, ImportInput, ImportResult } from './importer.ts';
export { PermanentImportError } from './importer.ts';
