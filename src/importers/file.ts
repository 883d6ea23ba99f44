/**
 * IMPORTER_MODULE=file: the default importer. Each inbound message's documents land in
 * `DOCUMENTS_DIR/<transfer>/<shard>/<messageId>/` (src/consumer/importer/file-importer.ts), for
 * a system that picks files up from a folder. It reads no settings of its own.
 */
import { createFileImporter, defineImporter, z } from '../consumer/importer/index.ts';

export default defineImporter({
  settings: z.object({}),
  describe: (_settings, { documentsDir }) =>
    `documents are written to ${documentsDir}/inbound/<shard>/<messageId>/`,
  create: ({ documentsDir, logger }) => createFileImporter({ documentsDir, logger }),
});
