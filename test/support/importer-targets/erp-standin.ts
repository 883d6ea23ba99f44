/**
 * A target controller module for the ERP stand-in (test/support/erp-standin.ts), the example
 * of src/importer-kit/README.md#target: every case of the importer kit from the command line,
 * for the example importer and a fork's copy of it (docs/forking.md):
 *
 *   npm run importer:check -- my-erp --reject-invoice-no REJECT-ME \
 *     --target test/support/importer-targets/erp-standin.ts
 *
 * The stand-in's faults are in its process, so the controller starts a stand-in of its own on
 * a free loopback port (refusing --reject-invoice-no), points the importer at it through
 * importerEnv (ERP_BASE_URL, ERP_TOKEN: over those of .env) and stops it when the kit ends.
 * A controller of a real ERP would instead reach a test instance already running, with a
 * proxy in front of it or a maintenance switch for outage() and hang(), and a lookup by
 * external id for holds().
 */
import { defineImporterTarget, type ImporterTarget } from '../../../src/importer-kit/index.ts';
import { type ErpStandin, startErpStandin } from '../erp-standin.ts';

/** A controller of a running stand-in, on its faults (also what the kit's own tests use). */
export function erpStandinTarget(erp: ErpStandin): ImporterTarget {
  return {
    // Every call answers 503 until recover().
    outage: () => erp.fault({ mode: '503', count: Number.MAX_SAFE_INTEGER }),
    recover: () => erp.clearFaults(),
    hang: () => erp.fault({ mode: 'hang' }),
    // The booking is made, then the connection cut: the importer never hears of it.
    loseReply: () => erp.fault({ mode: 'lose-reply', match: 'POST /documents' }),
    // Bookings of the message: externalId is the messageId, or (imports-twice, a wrong
    // importer) the messageId with a suffix of its own, `<messageId>#<random>`.
    holds: (messageId) =>
      erp
        .documents()
        .filter((d) => d.externalId === messageId || d.externalId.startsWith(`${messageId}#`))
        .length,
  };
}

export default defineImporterTarget(async ({ rejectInvoiceNo }) => {
  const erp = await startErpStandin({
    rejectInvoiceNos: rejectInvoiceNo === undefined ? [] : [rejectInvoiceNo],
  });
  return {
    ...erpStandinTarget(erp),
    importerEnv: { ERP_BASE_URL: erp.url, ERP_TOKEN: erp.token },
    close: () => erp.close(),
  };
});
