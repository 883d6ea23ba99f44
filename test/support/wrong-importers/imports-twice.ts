/**
 * A wrong importer, for the contract kit's own tests: the example HTTP importer
 * (src/importers/erp-http.ts), except that its idempotency key is fresh on every call
 * (`<messageId>#<random>` as the ERP's externalId) instead of the messageId. The ERP never
 * sees a duplicate, so a retry after a lost reply or a crash books the invoice a second time,
 * and the importer answers `imported` each time. `import.lost-reply` and
 * `import.duplicate-from-target` of the kit fail; the ERP holds the message twice.
 */
import { randomUUID } from 'node:crypto';
import { defineImporter, type Importer } from '../../../src/consumer/importer/index.ts';
import erpHttp, { createErpHttpImporter } from '../../../src/importers/erp-http.ts';

export default defineImporter({
  name: 'imports-twice',
  settings: erpHttp.settings,
  describe: erpHttp.describe,
  create({ settings }): Importer {
    const erp = createErpHttpImporter(settings);
    return {
      // Wrong: a key made per call is no idempotency key (erp-http sends messageId as externalId).
      import: (input) => erp.import({ ...input, messageId: `${input.messageId}#${randomUUID()}` }),
    };
  },
});
