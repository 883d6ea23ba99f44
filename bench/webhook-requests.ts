/**
 * Webhook requests as the service sends them, for load: every call builds a new event (own
 * eventId and messageId) and signs it at the current second, so each request passes the
 * timestamp tolerance and takes the consumer's insert path, never its dedupe path. Bodies are
 * about 3 KB of realistic data, alternating between the two kinds that dominate traffic: an
 * inbound deliveryNotified with its descriptor, and an outbound messageStatusChanged to
 * pendingdelivery with validation warnings.
 */
import { randomUUID } from 'node:crypto';
import {
  ACTION_HEADER,
  EVENT_ID_HEADER,
  type MessageDescriptor,
  SIGNATURE_HEADER,
  type StatusChange,
  signatureHeader,
  TRANSFER_HEADER,
  type ValidationResult,
  WEBHOOK_CONTENT_TYPE,
  WEBHOOK_USER_AGENT,
  type WebhookEnvelope,
} from '../src/protocol/index.ts';

export interface WebhookRequest {
  eventId: string;
  body: string;
  headers: Record<string, string>;
}

const PARTY = '0192:999999999';
const PEPPOL_BIS = {
  transactionKeyName: 'PEPPOL_BIS_BILLING_3_0_INVOICE',
  profileIdentifier: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0',
  customizationIdentifier:
    'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0',
  documentIdentifier: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##UBL-2.1',
};

/** The descriptor of an inbound invoice ready to fetch: core XML, its JSON, the original. */
export function deliveryNotified(messageId: string, occurredAt: string): WebhookEnvelope {
  const data: MessageDescriptor = {
    uniqueId: messageId,
    timeReceived: occurredAt,
    documentNo: 'INV-2026-004211',
    status: 'pendingdelivery',
    transfer: 'inbound',
    validationStatus: 'approved',
    taxReportingStatus: 'none',
    lifecycleStatus: 'none',
    importStatus: 'notimported',
    action: 'SubmitInvoice',
    originParty: {
      identifier: '0192:987654321',
      name: 'Nordic Office Supplies AS',
      countryCode: 'NO',
    },
    destinationParty: { identifier: PARTY, name: 'Sandbox Participant AS', countryCode: 'NO' },
    documents: [
      ['Invoice', 'application/xml', 'Core', false],
      ['Invoice', 'application/json', 'Core', true],
      ['Invoice', 'application/xml', 'Original', false],
      ['Invoice', 'application/pdf', 'Original', true],
      ['CreditNote', 'application/xml', 'Original', false],
    ].map(([name, contentType, attachmentType, isTransformed], index) => ({
      index,
      name: name as string,
      contentType: contentType as string,
      attachmentType: attachmentType as string,
      isTransformed: isTransformed as boolean,
      transaction: PEPPOL_BIS,
    })),
  };
  return envelope('deliveryNotified', 'inbound', messageId, occurredAt, data);
}

const WARNINGS: ValidationResult[] = [
  [
    'BR-CO-15',
    'Invoice total amount with VAT = Invoice total amount without VAT + Invoice total VAT amount.',
    '/Invoice/cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount',
  ],
  ['PEPPOL-EN16931-R001', 'Business process MUST be provided.', '/Invoice/cbc:ProfileID'],
  [
    'BR-S-08',
    'For each different value of VAT category rate the VAT category taxable amount shall equal the sum of Invoice line net amounts plus charges minus allowances.',
    '/Invoice/cac:TaxTotal/cac:TaxSubtotal[1]',
  ],
  [
    'PEPPOL-EN16931-R120',
    'Invoice line net amount MUST equal (Invoiced quantity * (Item net price/item price base quantity) + Sum of invoice line charge amount - sum of invoice line allowance amount',
    '/Invoice/cac:InvoiceLine[3]/cbc:LineExtensionAmount',
  ],
  [
    'BR-CL-23',
    'Unit code MUST be coded according to the UN/ECE Recommendation 20 with Rec 21 extension',
    '/Invoice/cac:InvoiceLine[2]/cbc:InvoicedQuantity/@unitCode',
  ],
  [
    'PEPPOL-COMMON-R040',
    'GLN must have a valid format according to GS1 rules.',
    '/Invoice/cac:AccountingSupplierParty/cac:Party/cbc:EndpointID',
  ],
  ['BR-DE-15', 'The element "Buyer reference" should be provided.', '/Invoice/cbc:BuyerReference'],
  [
    'PEPPOL-EN16931-R008',
    'Document MUST not contain empty elements.',
    '/Invoice/cac:InvoiceLine[4]/cac:Item/cbc:Description',
  ],
  [
    'BR-CO-25',
    'In case the Amount due for payment is positive, either the Payment due date or the Payment terms shall be present.',
    '/Invoice/cbc:DueDate',
  ],
  [
    'PEPPOL-EN16931-R053',
    'Only one tax total with tax subtotals MUST be provided.',
    '/Invoice/cac:TaxTotal[2]',
  ],
  [
    'BR-61',
    'If the Payment means type code means SEPA credit transfer, the Payment account identifier shall be present.',
    '/Invoice/cac:PaymentMeans/cac:PayeeFinancialAccount/cbc:ID',
  ],
].map(([code, message, location]) => ({
  type: 'warning',
  code: code as string,
  message: message as string,
  location: location as string,
}));

/** An outbound invoice that passed validation with warnings (docs/events.md#status-properties). */
export function messageStatusChanged(messageId: string, occurredAt: string): WebhookEnvelope {
  const data: StatusChange = {
    formerValue: 'received',
    newValue: 'pendingdelivery',
    properties: {
      validationResults: JSON.stringify(WARNINGS),
      actionMessageId: randomUUID(),
      actionName: 'InvoiceResponse',
      jurisdiction: 'NO',
    },
  };
  return envelope('messageStatusChanged', 'outbound', messageId, occurredAt, data);
}

function envelope(
  action: string,
  transfer: 'inbound' | 'outbound',
  messageId: string,
  occurredAt: string,
  data: unknown,
): WebhookEnvelope {
  return {
    eventId: randomUUID(),
    action,
    transfer,
    occurredAt,
    test: false,
    party: PARTY,
    messageId,
    data,
  };
}

/** Signs `body` at `nowMs` and adds the headers the service sends with it. */
export function signRequest(
  body: string,
  event: Pick<WebhookEnvelope, 'eventId' | 'action' | 'transfer'>,
  secret: string,
  nowMs: number = Date.now(),
): WebhookRequest {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    eventId: event.eventId,
    body,
    headers: {
      'content-type': WEBHOOK_CONTENT_TYPE,
      'user-agent': WEBHOOK_USER_AGENT,
      [SIGNATURE_HEADER]: signatureHeader({ secrets: [secret], timestamp, body }),
      [EVENT_ID_HEADER]: event.eventId,
      [ACTION_HEADER]: event.action,
      [TRANSFER_HEADER]: event.transfer,
    },
  };
}

// Placeholders of the templates below; none can occur in real data.
const EVENT_ID = '{{eventId}}';
const MESSAGE_ID = '{{messageId}}';
const NOW = '{{now}}';

/**
 * A source of distinct signed requests, alternating the two event kinds. Each kind is
 * serialized once with placeholders; a request only substitutes a fresh eventId, messageId
 * and time, then signs. The load client shares the machine with the server, so its cost per
 * request is kept small (about a third of a JSON.stringify per request), while every body is
 * still different and signed at send time.
 */
export function createRequestSource(secret: string): () => WebhookRequest {
  const templates = [deliveryNotified, messageStatusChanged].map((build) => {
    const event = { ...build(MESSAGE_ID, NOW), eventId: EVENT_ID };
    return { action: event.action, transfer: event.transfer, body: JSON.stringify(event) };
  });
  let n = 0;
  return () => {
    const nowMs = Date.now();
    const eventId = randomUUID();
    const { action, transfer, body } = templates[n++ % templates.length] as (typeof templates)[0];
    const filled = body
      .replace(EVENT_ID, eventId)
      .replaceAll(MESSAGE_ID, randomUUID())
      .replaceAll(NOW, new Date(nowMs).toISOString());
    return signRequest(filled, { eventId, action, transfer }, secret, nowMs);
  };
}

export interface RequestPool {
  next: () => WebhookRequest;
  /** Requests built during the run because the pool ran out (0 when it was large enough). */
  builtDuringRun(): number;
}

/**
 * `size` distinct requests built and signed before the run, so the load client spends its core
 * on sending rather than on building: a pool is served in order, each request once. The
 * signatures are valid for the service's 300 s tolerance, longer than any run. If the pool runs
 * out, requests are built at send time as createRequestSource does, and counted.
 */
export function createRequestPool(secret: string, size: number): RequestPool {
  const build = createRequestSource(secret);
  const pool = Array.from({ length: size }, build);
  let served = 0;
  let built = 0;
  return {
    next() {
      const request = pool[served];
      if (request !== undefined) {
        // Released as it is sent: the pool shrinks with the run.
        pool[served] = undefined as unknown as WebhookRequest;
        served += 1;
        return request;
      }
      built += 1;
      return build();
    },
    builtDuringRun: () => built,
  };
}
