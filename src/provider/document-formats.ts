/**
 * The document types and formats the simulator can deliver (docs/messaging-api.md#document-formats):
 * what a message's document entries say about them, and how routing reads them back. The
 * descriptor is the one place a message's type and format live: routing filters match the Core
 * entry's name and the format its contentType implies (docs/webhook-endpoints.md#routing), and
 * GET /messages/:mid/documents/core answers in that contentType, so the three always agree.
 */
import type { DocumentEntry, DocumentTransaction } from '../protocol/index.ts';
import { edifactTransaction } from './edifact-document.ts';
import type { DocumentFormat } from './events.ts';
import { PEPPOL_BILLING_TRANSACTION, PEPPOL_CREDIT_NOTE_TRANSACTION } from './ubl-invoice.ts';
import { PEPPOL_ORDER_TRANSACTION } from './ubl-order.ts';

/** Core document types a scenario can ask for; each renders in every format. */
export const DOCUMENT_TYPES = ['Invoice', 'CreditNote', 'Order'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** The type and format of a message's core document. */
export interface CoreDocumentChoice {
  type: DocumentType;
  format: DocumentFormat;
}

/** The default, and every SubmitInvoice before scenarios could choose: a UBL Invoice. */
export const DEFAULT_CORE_DOCUMENT: CoreDocumentChoice = Object.freeze({
  type: 'Invoice',
  format: 'XML',
});

/** The contentType of a document entry in each format. */
export const CONTENT_TYPES: Record<DocumentFormat, string> = {
  XML: 'application/xml',
  JSON: 'application/json',
  PDF: 'application/pdf',
  EDI: 'application/edifact',
};

/**
 * The routing format of a media type. EDI is "EDIFACT, X12 and other plain-text documents",
 * so whatever is not XML, JSON or PDF counts as EDI.
 */
export function formatOfContentType(contentType: string): DocumentFormat {
  const type = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'XML';
  if (type === 'application/json' || type.endsWith('+json')) return 'JSON';
  if (type === 'application/pdf') return 'PDF';
  return 'EDI';
}

/** The Core entry of a message's documents (the first entry when none says Core). */
export function coreEntry(documents: readonly DocumentEntry[]): DocumentEntry | undefined {
  return documents.find((d) => d.attachmentType === 'Core') ?? documents[0];
}

/**
 * The standard a document follows: the type's Peppol BIS document for XML, and for JSON and PDF,
 * which carry the same content in another syntax; the EDIFACT message for EDI.
 */
export function documentTransaction(
  type: DocumentType,
  format: DocumentFormat,
): DocumentTransaction {
  if (format === 'EDI') return edifactTransaction(type);
  const byType: Record<DocumentType, DocumentTransaction> = {
    Invoice: PEPPOL_BILLING_TRANSACTION,
    CreditNote: PEPPOL_CREDIT_NOTE_TRANSACTION,
    Order: PEPPOL_ORDER_TRANSACTION,
  };
  return { ...byType[type] };
}

/**
 * The document entries of a SubmitInvoice message: the Core document in the chosen type and
 * format, and the Original, the JSON the sender posted.
 */
export function submittedDocuments(choice: CoreDocumentChoice): DocumentEntry[] {
  return [
    {
      index: 0,
      name: choice.type,
      contentType: CONTENT_TYPES[choice.format],
      attachmentType: 'Core',
      isTransformed: false,
      transaction: documentTransaction(choice.type, choice.format),
    },
    {
      index: 1,
      name: choice.type,
      contentType: CONTENT_TYPES.JSON,
      attachmentType: 'Original',
      isTransformed: false,
      transaction: documentTransaction(choice.type, 'JSON'),
    },
  ];
}
