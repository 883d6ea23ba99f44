/**
 * The importer's configuration section (docs/configuration.md#importer): which importer, its
 * deadline, and where documents are written and spooled. An importer's own settings are
 * declared by the importer module (define-importer.ts) and read by load-importer.ts.
 */
import type { Reader } from '../settings/reader.ts';

export interface ImporterSettings {
  /** @default './data/documents' */
  documentsDir: string;
  /** Deadline of one import() call; its AbortSignal fires then. @default 60000 */
  importTimeoutMs: number;
  /**
   * The importer: a name of src/importers/ or a path (importer/load-importer.ts). Required in
   * production (NODE_ENV=production), where no importer is assumed. @default undefined (`file`)
   */
  importerModule: string | undefined;
}

export function readDocumentsDir(read: Reader): Pick<ImporterSettings, 'documentsDir'> {
  return { documentsDir: read.string('DOCUMENTS_DIR', './data/documents') };
}

export function readImporterSettings(
  read: Reader,
): Pick<ImporterSettings, 'importTimeoutMs' | 'importerModule'> {
  const settings = {
    importTimeoutMs: read.integer('IMPORT_TIMEOUT_MS', 60_000, { min: 1 }),
    importerModule: read.optional('IMPORTER_MODULE', (v) => ({ value: v })),
  };
  if (settings.importerModule === undefined && read.raw('NODE_ENV') === 'production') {
    read.problem(
      'IMPORTER_MODULE is required when NODE_ENV=production (as in the image): set it to your importer (a name of src/importers/, e.g. IMPORTER_MODULE=my-erp), or to IMPORTER_MODULE=file to write the documents under DOCUMENTS_DIR on purpose (docs/forking.md)',
    );
  }
  return settings;
}

/** Where fetched documents are spooled: beside the documents, so an importer can rename them. */
export function spoolDirOf(config: Pick<ImporterSettings, 'documentsDir'>): string {
  return `${config.documentsDir.replace(/\/+$/, '')}/.incoming`;
}
