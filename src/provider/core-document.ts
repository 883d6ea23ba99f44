/**
 * The core document of a message in its own format (GET /messages/:mid/documents/core): a UBL
 * Invoice for a SubmitInvoice message, a UBL ApplicationResponse (Peppol MLR) for a response.
 */
import type { SubmitInvoiceBody } from './invoice.ts';
import type { ProviderMessage } from './model/index.ts';
import type { ResponseBody } from './model/responses.ts';
import { escapeXml, renderUblInvoice } from './ubl-invoice.ts';

const AR_NAMESPACE = 'urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2';
const CAC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2';
const CBC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2';

export function renderCoreDocument(message: ProviderMessage): string {
  if (message.action === 'SubmitInvoice') {
    return renderUblInvoice(message.body as unknown as SubmitInvoiceBody);
  }
  return renderApplicationResponse(message.id, message.body as unknown as ResponseBody);
}

function renderApplicationResponse(id: string, body: ResponseBody): string {
  const x = (value: string) => escapeXml(value);
  const endpoint = (identifier: string) => {
    const [scheme = '', value = ''] = identifier.split(':');
    return `<cbc:EndpointID schemeID="${x(scheme)}">${x(value)}</cbc:EndpointID>`;
  };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<ApplicationResponse xmlns="${AR_NAMESPACE}" xmlns:cac="${CAC}" xmlns:cbc="${CBC}">`,
    '<cbc:CustomizationID>urn:fdc:peppol.eu:poacc:trns:mlr:3</cbc:CustomizationID>',
    '<cbc:ProfileID>urn:fdc:peppol.eu:poacc:bis:mlr:3</cbc:ProfileID>',
    `<cbc:ID>${x(id)}</cbc:ID>`,
    `<cbc:IssueDate>${x(body.issueDate)}</cbc:IssueDate>`,
    `<cac:SenderParty>${endpoint(body.senderIdentifier)}</cac:SenderParty>`,
    `<cac:ReceiverParty>${endpoint(body.receiverIdentifier)}</cac:ReceiverParty>`,
    '<cac:DocumentResponse>',
    `<cac:Response><cbc:ResponseCode>${x(body.responseCode)}</cbc:ResponseCode></cac:Response>`,
    `<cac:DocumentReference><cbc:ID>${x(body.referencedDocumentNo)}</cbc:ID></cac:DocumentReference>`,
    '</cac:DocumentResponse>',
    '</ApplicationResponse>',
    '',
  ].join('\n');
}
