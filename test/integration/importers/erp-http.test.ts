/**
 * The example HTTP importer against the importer contract, the way a forker tests their own:
 * describeImporterContract with the importer's settings, an invoice number its ERP refuses,
 * and a controller of the ERP (here the stand-in's faults) for outages, hangs and lost replies.
 */
import { afterAll, beforeAll } from 'vitest';
import { describeImporterContract } from '../../../src/importer-kit/index.ts';
import { type ErpStandin, startErpStandin } from '../../support/erp-standin.ts';
import { erpStandinTarget } from '../importer-kit/erp-standin-target.ts';

const REFUSED = 'REFUSED-INVOICE-1';

let erp: ErpStandin;
beforeAll(async () => {
  erp = await startErpStandin({ rejectInvoiceNos: [REFUSED] });
});
afterAll(async () => {
  await erp?.close();
});

describeImporterContract({
  importer: 'erp-http',
  // Functions: the stand-in's URL is known once the beforeAll above ran.
  env: () => ({ ERP_BASE_URL: erp.url, ERP_TOKEN: erp.token }),
  rejectInvoiceNo: REFUSED,
  target: () => erpStandinTarget(erp),
});
