/**
 * A controller of the ERP stand-in (test/support/erp-standin.ts) for the importer kit, built on
 * its faults: the example of src/importer-kit/target.ts a forker writes for their own ERP.
 */
import type { ImporterTarget } from '../../../src/importer-kit/index.ts';
import type { ErpStandin } from '../../support/erp-standin.ts';

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
