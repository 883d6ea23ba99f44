/**
 * A wrong importer, for the contract kit's own tests: the example HTTP importer
 * (src/importers/erp-http.ts), except that the ERP's 409 on a booked externalId becomes a
 * PermanentImportError, "the ERP refused it as a duplicate". That is the 409 trap of
 * src/consumer/importer/README.md: after a lost reply, the retry's 409 is the importer's own
 * earlier booking, and this importer tells the sender their invoice was refused while the ERP
 * holds it. Every other check of the project passes with it; `import.lost-reply` and
 * `import.duplicate-from-target` of the kit fail.
 *
 * erp-http answers a 409, and only a 409, with `already_imported`; turning that answer into the
 * error is the same mistake as throwing on the status code.
 */
import {
  defineImporter,
  type Importer,
  PermanentImportError,
} from '../../../src/consumer/importer/index.ts';
import erpHttp, { createErpHttpImporter } from '../../../src/importers/erp-http.ts';

export default defineImporter({
  name: 'duplicate-as-rejection',
  settings: erpHttp.settings,
  describe: erpHttp.describe,
  create({ settings }): Importer {
    const erp = createErpHttpImporter(settings);
    return {
      async import(input) {
        const result = await erp.import(input);
        if (result.status === 'already_imported') {
          // Wrong: the 409 is this importer's own earlier booking, not a refusal.
          throw new PermanentImportError(
            `the ERP refused the invoice as a duplicate (${result.location})`,
          );
        }
        return result;
      },
    };
  },
});
