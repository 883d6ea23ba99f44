/**
 * The example HTTP importer against the importer contract, the way a forker tests their own:
 * describeImporterContract with the importer's settings, an invoice number its ERP refuses,
 * and a controller of the ERP (here the stand-in's faults) for outages, hangs and lost replies.
 */
import { describeImporterContract } from '../../../src/importer-kit/index.ts';
import {
  erpStandinTarget,
  REFUSED_INVOICE_NO,
  setUpErpStandin,
} from '../importer-kit/erp-standin-target.ts';

const standin = setUpErpStandin();

describeImporterContract({
  importer: 'erp-http',
  // Functions: the stand-in's URL is known once the beforeAll of setUpErpStandin ran.
  env: () => ({ ERP_BASE_URL: standin.erp.url, ERP_TOKEN: standin.erp.token }),
  rejectInvoiceNo: REFUSED_INVOICE_NO,
  target: () => erpStandinTarget(standin.erp),
});
