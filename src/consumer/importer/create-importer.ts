import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { createFileImporter } from './file-importer.ts';
import type { Importer } from './importer.ts';

/**
 * The importer this deployment uses. Both the consumer and `npm run reconcile` get their
 * importer here (through load-importer.ts), so this function is the one place a fork plugs in
 * its ERP import (see README.md). IMPORTER_MODULE can name a module to use instead.
 */
export function createImporter(config: Pick<Config, 'documentsDir'>, logger: Logger): Importer {
  return createFileImporter({ documentsDir: config.documentsDir, logger });
}
