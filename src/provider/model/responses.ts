/**
 * Acknowledgement-level responses (docs/statuses.md#transitions, docs/events.md#status-events). A participant set up for
 * them (participants.ts, `acknowledgementResponse`) receives one when its outbound invoice
 * passes validation, at the moment of the outbound deliveryNotified. A response is an inbound
 * message of its own: its own messageId, announced with created, messageStatusChanged to
 * pendingdelivery and deliveryNotified, fetched and acknowledged like any inbound message. No
 * status event refers to it; only its content names the message it answers.
 *
 * The service names MLRs and eMLRs without saying how they differ. The simulator sends both as a
 * Peppol MLR (a UBL ApplicationResponse with response code AB, "message acknowledgement") and
 * tells them apart by the business transaction (`data.action`): `MessageLevelResponse` or
 * `EMessageLevelResponse`, so a consumer meets a second transaction route
 * (docs/decisions.md#acknowledgement-responses).
 */
import {
  ACKNOWLEDGEMENT_RESPONSE_ACTIONS,
  type AcknowledgementResponseBody,
  type DocumentTransaction,
} from '../../protocol/index.ts';
import type { ProviderMessage } from './message.ts';
import type { AcknowledgementResponse } from './participants.ts';

export const PEPPOL_MLR_TRANSACTION: DocumentTransaction = {
  transactionKeyName: 'PeppolBisMlr3',
  profileIdentifier: 'urn:fdc:peppol.eu:poacc:bis:mlr:3',
  customizationIdentifier: 'urn:fdc:peppol.eu:poacc:trns:mlr:3',
  documentIdentifier:
    'urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2::ApplicationResponse##urn:fdc:peppol.eu:poacc:trns:mlr:3::2.1',
};

/** A response to `original` for its sender, without sides yet (the caller announces it). */
export function buildResponseMessage(
  original: ProviderMessage,
  kind: Exclude<AcknowledgementResponse, 'none'>,
  params: { id: string; timeReceived: string; issueDate: string },
): ProviderMessage {
  const body: AcknowledgementResponseBody = {
    responseType: kind,
    responseCode: 'AB',
    issueDate: params.issueDate,
    referencedMessageId: original.id,
    referencedDocumentNo: original.documentNo,
    senderIdentifier: original.destination.identifier,
    receiverIdentifier: original.origin.identifier,
  };
  return {
    id: params.id,
    action: ACKNOWLEDGEMENT_RESPONSE_ACTIONS[kind],
    documentNo: `${kind}-${original.documentNo}`,
    timeReceived: params.timeReceived,
    // From the invoice's receiver side back to its sender.
    origin: { ...original.destination },
    destination: { ...original.origin },
    body: { ...body },
    validationStatus: 'approved',
    validationResults: [],
    documents: [
      {
        index: 0,
        name: 'ApplicationResponse',
        contentType: 'application/xml',
        attachmentType: 'Core',
        isTransformed: false,
        transaction: { ...PEPPOL_MLR_TRANSACTION },
      },
    ],
    sides: {},
    events: [],
  };
}
