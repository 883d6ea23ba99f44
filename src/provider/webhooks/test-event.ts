/**
 * Generated test events (docs/webhook-endpoints.md#test-events): random ids, a sample Invoice/XML message, the
 * participant's own identifier and `test: true`, so a consumer can check its set-up without a
 * real message and its import logic skips the event.
 */
import {
  MESSAGE_ACTIONS,
  type MessageDescriptor,
  STATUS_ACTIONS,
  type StatusChange,
  type WebhookEnvelope,
} from '../../protocol/index.ts';
import type { Category } from './types.ts';

/** Both categories carry the same actions today; optional set-ups may add categories later. */
export const CATEGORY_ACTIONS: Record<Category, readonly string[]> = {
  inbound: [...MESSAGE_ACTIONS, ...STATUS_ACTIONS],
  outbound: [...MESSAGE_ACTIONS, ...STATUS_ACTIONS],
};

export const DEFAULT_TEST_ACTION = 'created';

const SAMPLE_STATUS_CHANGES: Record<string, StatusChange> = {
  messageStatusChanged: { formerValue: 'pendingdelivery', newValue: 'delivered' },
  taxReportingStatusChanged: { formerValue: 'none', newValue: 'electronic' },
  lifecycleStatusChanged: { formerValue: 'none', newValue: 'paid' },
};

export function buildTestEnvelope(params: {
  party: string;
  category: Category;
  action: string;
  randomId: () => string;
  nowMs: number;
}): WebhookEnvelope {
  const messageId = params.randomId();
  const data =
    SAMPLE_STATUS_CHANGES[params.action] ??
    sampleDescriptor(messageId, params.party, params.category, params.action, params.nowMs);
  return {
    eventId: params.randomId(),
    action: params.action,
    transfer: params.category,
    occurredAt: new Date(params.nowMs).toISOString(),
    test: true,
    party: params.party,
    messageId,
    data,
  };
}

function sampleDescriptor(
  messageId: string,
  party: string,
  transfer: Category,
  action: string,
  nowMs: number,
): MessageDescriptor {
  const own = { identifier: party, name: 'Test participant', countryCode: 'NO' };
  const other = { identifier: '0192:000000000', name: 'Sample counterparty', countryCode: 'NO' };
  return {
    uniqueId: messageId,
    // Descriptor dates are whole seconds (docs/events.md#message-descriptor).
    timeReceived: `${new Date(nowMs).toISOString().slice(0, 19)}Z`,
    documentNo: `TEST-${messageId.slice(0, 8)}`,
    status: action === 'deliveryNotified' ? 'pendingdelivery' : 'received',
    transfer,
    validationStatus: 'approved',
    taxReportingStatus: 'none',
    lifecycleStatus: 'none',
    importStatus: 'NotSet',
    action: 'SubmitInvoice',
    originParty: transfer === 'outbound' ? own : other,
    destinationParty: transfer === 'outbound' ? other : own,
    documents: [
      {
        index: 0,
        name: 'Invoice',
        contentType: 'application/xml',
        attachmentType: 'Core',
        isTransformed: false,
        transaction: {
          transactionKeyName: 'PeppolBis3Invoice',
          profileIdentifier: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0',
          customizationIdentifier:
            'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0',
          documentIdentifier: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice',
        },
      },
    ],
  };
}

/**
 * What to check after a failed test event: docs/webhook-endpoints.md#test-event-diagnostics for 401/403, a timeout, 404 and
 * a TLS error, and a refused connection, the usual first failure in a sandbox. Undefined for a
 * success or a failure the specification gives no advice for.
 */
export function testEventHint(outcome: {
  statusCode?: number;
  error?: string;
}): string | undefined {
  const { statusCode, error } = outcome;
  if (statusCode === 401 || statusCode === 403) {
    return "The endpoint rejected the request: check its signature verification with this endpoint's signing secret, and that it accepts the endpoint's credential.";
  }
  if (statusCode === 404) return "Wrong URL: the endpoint's host answered, but not at this path.";
  if (error === undefined) return undefined;
  // sendWebhook's texts: "timeout: ..." or "<CODE>: <message>" (send-webhook.ts describeError).
  if (error.startsWith('timeout:')) {
    return 'No answer within 5 seconds: answer first (store the event, return 204) and process it in the background.';
  }
  if (/CERT|SSL|TLS|EPROTO/.test(error)) {
    return 'TLS error: a certificate problem at the endpoint (expired, self-signed, or not for this host name).';
  }
  if (/ECONNREFUSED/.test(error)) {
    return "Connection refused: nothing listens at the URL's host and port. Is the consumer running?";
  }
  if (/ENOTFOUND|EAI_AGAIN/.test(error)) return "The URL's host name does not resolve.";
  return undefined;
}
