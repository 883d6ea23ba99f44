/**
 * The core document of a message in its own format (GET /messages/:mid/documents/core). For a
 * SubmitInvoice message, the invoice data rendered as the Core entry's type and format say
 * (document-formats.ts): a UBL Invoice, CreditNote or Order for XML, the invoice JSON itself
 * for JSON, a one-page PDF, or an EDIFACT interchange; padded to the size a scenario asked for
 * (document-parts.ts). For a response message, a UBL ApplicationResponse (Peppol MLR).
 */
import type { AcknowledgementResponseBody, SubmitInvoiceBody } from '../protocol/index.ts';
import {
  coreEntry,
  DEFAULT_CORE_DOCUMENT,
  DOCUMENT_TYPES,
  type DocumentType,
  formatOfContentType,
} from './document-formats.ts';
import {
  type DocumentParts,
  FILL_MARK,
  PADDING_ROW,
  padToSize,
  splitAtFill,
  wholeDocument,
} from './document-parts.ts';
import { renderEdifact } from './edifact-document.ts';
import type { ProviderMessage } from './model/index.ts';
import { renderPdf } from './pdf-document.ts';
import { CAC, CBC, escapeXml } from './ubl-elements.ts';
import { renderUblInvoice } from './ubl-invoice.ts';
import { renderUblOrder } from './ubl-order.ts';

const AR_NAMESPACE = 'urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2';

export interface CoreDocument {
  /** The Content-Type header of the answer. */
  contentType: string;
  parts: DocumentParts;
}

/** Header values: text formats name their charset, as express did for the XML before formats. */
const CONTENT_TYPE_HEADERS = {
  XML: 'application/xml; charset=utf-8',
  JSON: 'application/json; charset=utf-8',
  PDF: 'application/pdf',
  // The interchange declares its character set itself (UNB: UNOC, Latin-1).
  EDI: 'application/edifact',
} as const;

const PDF_TITLES: Record<DocumentType, string> = {
  Invoice: 'Invoice',
  CreditNote: 'Credit note',
  Order: 'Order',
};

export function renderCoreDocument(message: ProviderMessage): CoreDocument {
  if (message.action !== 'SubmitInvoice') {
    const body = message.body as unknown as AcknowledgementResponseBody;
    return {
      contentType: CONTENT_TYPE_HEADERS.XML,
      parts: wholeDocument(renderApplicationResponse(message.id, body)),
    };
  }
  const body = message.body as unknown as SubmitInvoiceBody;
  const core = coreEntry(message.documents);
  const type = (DOCUMENT_TYPES as readonly string[]).includes(core?.name ?? '')
    ? (core?.name as DocumentType)
    : DEFAULT_CORE_DOCUMENT.type;
  const format = core === undefined ? 'XML' : formatOfContentType(core.contentType);
  const minBytes = message.coreDocumentBytes;
  const contentType = CONTENT_TYPE_HEADERS[format];
  switch (format) {
    case 'XML': {
      const render = (additionalDocumentReference?: string) =>
        type === 'Order'
          ? renderUblOrder(body, { additionalDocumentReference })
          : renderUblInvoice(body, { document: type, additionalDocumentReference });
      const unit = Buffer.from(Buffer.from(PADDING_ROW).toString('base64'));
      return {
        contentType,
        parts: padToSize(
          minBytes,
          () => wholeDocument(render()),
          (count) => splitAtFill(render(embeddedAttachment()), unit, count),
        ),
      };
    }
    case 'JSON': {
      // The same bytes as the transaction JSON; padding is whitespace before the closing brace.
      const json = JSON.stringify(body);
      const unit = Buffer.from(' '.repeat(64));
      return {
        contentType,
        parts: padToSize(
          minBytes,
          () => wholeDocument(json),
          (count) => splitAtFill(`${json.slice(0, -1)}${FILL_MARK}}`, unit, count),
        ),
      };
    }
    case 'PDF': {
      const unit = Buffer.from(PADDING_ROW);
      return {
        contentType,
        parts: padToSize(
          minBytes,
          () => renderPdf(body, PDF_TITLES[type]),
          (count) => renderPdf(body, PDF_TITLES[type], { unit, count }),
        ),
      };
    }
    case 'EDI': {
      const reference = message.id.replace(/[^A-Za-z0-9]/g, '').slice(0, 14);
      return {
        contentType,
        parts: padToSize(
          minBytes,
          () => renderEdifact(body, type, { reference }),
          (count) => renderEdifact(body, type, { reference, count }),
        ),
      };
    }
  }
}

/** The padding of a UBL document: a CSV attachment, base64 as UBL embeds binary objects. */
function embeddedAttachment(): string {
  return [
    '<cac:AdditionalDocumentReference>',
    '<cbc:ID>padding</cbc:ID>',
    '<cbc:DocumentDescription>Rows the simulator adds to make the core document larger</cbc:DocumentDescription>',
    '<cac:Attachment>',
    `<cbc:EmbeddedDocumentBinaryObject mimeCode="text/csv" filename="padding.csv">${FILL_MARK}</cbc:EmbeddedDocumentBinaryObject>`,
    '</cac:Attachment>',
    '</cac:AdditionalDocumentReference>',
  ].join('');
}

function renderApplicationResponse(id: string, body: AcknowledgementResponseBody): string {
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
