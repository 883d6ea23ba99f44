/**
 * The messages' admin route (docs/operating.md), behind the admin tokens (admin-tokens.ts):
 *
 *   GET /admin/messages/:messageId   what the consumer holds of the message, by side
 *                                    ADMIN_TOKEN, ADMIN_READ_TOKEN
 */
import type { Router } from 'express';
import type { MessageRecord } from '../store/messages.ts';
import type { Store } from '../store/store.ts';
import { iso } from './admin-fields.ts';
import type { AdminAuth } from './admin-tokens.ts';
import { sendProblem } from './problem.ts';

export function addMessageRoutes(
  router: Router,
  deps: { store: Store; accepts: AdminAuth['accepts'] },
): void {
  router.route('/admin/messages/:messageId').get(deps.accepts('read'), async (req, res) => {
    const sides = await deps.store.messages.listSides(req.params.messageId);
    if (sides.length === 0) {
      sendProblem(res, { status: 404, title: 'Not Found', detail: 'No such message.' });
      return;
    }
    const view = (transfer: 'inbound' | 'outbound') => {
      const side = sides.find((candidate) => candidate.transfer === transfer);
      return side === undefined ? null : messageView(side);
    };
    res.json({
      messageId: req.params.messageId,
      inbound: view('inbound'),
      outbound: view('outbound'),
    });
  });
}

/** The view docs/operating.md documents, which operators and acceptance checks read. */
function messageView(record: MessageRecord) {
  return {
    deliveryStatus: record.deliveryStatus,
    taxReportingStatus: record.taxReportingStatus,
    lifecycleStatus: record.lifecycleStatus,
    validationStatus: record.validationStatus,
    documentNo: record.documentNo,
    importedAt: iso(record.importedAt),
    acknowledgedAt: iso(record.acknowledgedAt),
    lastEventAt: iso(record.lastEventAt),
    // Where the importer put the documents (an ERP's document number, a folder), how many
    // import() calls were started, and the last transient failure of one (null once imported).
    importLocation: record.importLocation,
    importAttempts: record.importAttempts,
    importError: record.importError,
    // What the service was told: delivered, or failed with the importer's reason.
    acknowledgement: record.acknowledgement,
    failureReason: record.failureReason,
  };
}
