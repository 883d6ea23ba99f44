/**
 * The set-up the kit's tests share: the ERP stand-in (test/support/erp-standin.ts) started for
 * a test file, with the kit options that point an importer at it and its controller
 * (erpStandinTarget, of the example target module test/support/importer-targets/erp-standin.ts).
 */
import { afterAll, beforeAll } from 'vitest';
import type { ImporterKitOptions } from '../../../src/importer-kit/index.ts';
import { type ErpStandin, startErpStandin } from '../../support/erp-standin.ts';
import { erpStandinTarget } from '../../support/importer-targets/erp-standin.ts';

export { erpStandinTarget };

/** The invoice number the stand-in of setUpErpStandin refuses for good (import.permanent). */
export const REFUSED_INVOICE_NO = 'REFUSED-INVOICE-1';

export interface ErpStandinForKit {
  /** The stand-in, once the file's beforeAll has started it. */
  readonly erp: ErpStandin;
  /**
   * The kit's options for an importer that books in the stand-in: its URL and token (plus
   * `env`, the importer's other settings), the refused invoice number, and the controller.
   */
  kitOptions(
    env?: Record<string, string>,
  ): Required<Pick<ImporterKitOptions, 'env' | 'rejectInvoiceNo' | 'target'>>;
}

/**
 * Starts the ERP stand-in in the calling file's beforeAll, refusing REFUSED_INVOICE_NO, and
 * closes it in its afterAll.
 */
export function setUpErpStandin(): ErpStandinForKit {
  let erp: ErpStandin | undefined;
  beforeAll(async () => {
    erp = await startErpStandin({ rejectInvoiceNos: [REFUSED_INVOICE_NO] });
  });
  afterAll(async () => {
    await erp?.close();
  });
  const started = () => {
    if (erp === undefined) throw new Error('the ERP stand-in is started by beforeAll');
    return erp;
  };
  return {
    get erp() {
      return started();
    },
    kitOptions: (env = {}) => ({
      env: { ERP_BASE_URL: started().url, ERP_TOKEN: started().token, ...env },
      rejectInvoiceNo: REFUSED_INVOICE_NO,
      target: erpStandinTarget(started()),
    }),
  };
}
