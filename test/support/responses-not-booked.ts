/**
 * An importer whose ERP keeps no record of response messages, as many do: the example HTTP
 * importer (src/importers/erp-http.ts) for invoices, credit notes and orders, and `not_booked`
 * for an MLR or eMLR (their descriptor's action is MessageLevelResponse or
 * EMessageLevelResponse), as src/consumer/importer/README.md says to answer a message one does
 * not book. The importer kit must pass it (test/integration/importer-kit/not-booked.test.ts).
 */
import {
  defineImporter,
  type Importer,
  type ImportInput,
  type ImportResult,
} from '../../src/consumer/importer/index.ts';
import erpHttp, { createErpHttpImporter } from '../../src/importers/erp-http.ts';

/** The actions of response messages (docs/decisions.md#acknowledgement-responses). */
const RESPONSE_ACTIONS: ReadonlySet<string> = new Set([
  'MessageLevelResponse',
  'EMessageLevelResponse',
]);

export default defineImporter({
  name: 'responses-not-booked',
  settings: erpHttp.settings,
  describe: (s) => `erp-http at ${s.ERP_BASE_URL}; responses (MLR, eMLR) not booked`,
  create({ settings }): Importer {
    const erp = createErpHttpImporter(settings);
    return {
      async import(input: ImportInput): Promise<ImportResult> {
        if (RESPONSE_ACTIONS.has(input.descriptor.action)) {
          return {
            status: 'not_booked',
            reason: `a ${input.descriptor.action}: the ERP keeps no record of responses`,
          };
        }
        return erp.import(input);
      },
    };
  },
});
