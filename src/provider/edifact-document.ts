/**
 * The invoice data of a message as a UN/EDIFACT D.96A interchange, for a scenario that
 * delivers an EDI core document (docs/messaging-api.md#document-formats): an INVOIC (BGM 380)
 * for an invoice, an INVOIC with BGM 381 for a credit note, an ORDERS (BGM 220) for an order.
 * Syntax level C (UNOC, Latin-1: other characters become `?` before escaping), one segment per
 * line for people reading it. Like the UBL renderings, faithful-looking, not certified: codes
 * (units) are passed through as sent.
 *
 * Padding (document-parts.ts) is header free-text segments (FTX+AAI), which the message's
 * segment count in UNT includes.
 */
import type { DocumentTransaction, InvoiceAddress, SubmitInvoiceBody } from '../protocol/index.ts';
import { type DocumentParts, FILL_MARK, splitAtFill, wholeDocument } from './document-parts.ts';

export type EdifactDocument = 'Invoice' | 'CreditNote' | 'Order';

const MESSAGE_TYPE: Record<EdifactDocument, 'INVOIC' | 'ORDERS'> = {
  Invoice: 'INVOIC',
  CreditNote: 'INVOIC',
  Order: 'ORDERS',
};
const DOCUMENT_CODE: Record<EdifactDocument, string> = {
  Invoice: '380',
  CreditNote: '381',
  Order: '220',
};

/** The `transaction` of an EDI document entry: the EDIFACT directory and message it follows. */
export function edifactTransaction(document: EdifactDocument): DocumentTransaction {
  const type = MESSAGE_TYPE[document];
  return {
    transactionKeyName: type === 'INVOIC' ? 'EdifactD96AInvoic' : 'EdifactD96AOrders',
    profileIdentifier: 'UN/EDIFACT',
    customizationIdentifier: 'D.96A',
    documentIdentifier: `${type}:D:96A:UN`,
  };
}

/** One free-text segment of padding: 511 characters, within the 512 FTX allows in one part. */
export const EDIFACT_PADDING_SEGMENT = Buffer.from(
  `FTX+AAI+++${'PADDING ADDED BY THE SIMULATOR. '.repeat(16).trimEnd()}'\n`,
  'latin1',
);

/** A data element: Latin-1, with the release character before each service character. */
function text(value: unknown): string {
  const latin1 = String(value ?? '').replace(/[^\u0020-\u007e\u00a0-\u00ff]/g, '?');
  return latin1.replace(/[?:+']/g, (c) => `?${c}`);
}

const ymd = (iso: string) => text(iso.slice(0, 10).replaceAll('-', ''));
const decimal = (value: number) => (typeof value === 'number' ? value.toFixed(2) : text(value));

/** `<scheme>:<number>` as party identification: the number, and the scheme in the agency slot. */
function partyId(identifier: string): string {
  const [scheme = '', number = ''] = identifier.split(':');
  return `${text(number)}::${text(scheme)}`;
}

/** `<scheme>:<number>` as an interchange party: the number, qualified by the scheme. */
function interchangeParty(identifier: string): string {
  const [scheme = '', number = ''] = identifier.split(':');
  return `${text(number)}:${text(scheme)}`;
}

function nad(qualifier: string, identifier: string, name: string, address: InvoiceAddress) {
  return `NAD+${qualifier}+${partyId(identifier)}++${text(name)}+${text(address.streetNameAndNumber)}+${text(address.city)}++${text(address.postalZone)}+${text(address.countryCode)}`;
}

/**
 * `reference` is the interchange control reference (at most 14 characters); `count` padding
 * segments go after the document date.
 */
export function renderEdifact(
  body: SubmitInvoiceBody,
  document: EdifactDocument,
  options: { reference: string; count?: number },
): DocumentParts {
  const { invoice } = body;
  const type = MESSAGE_TYPE[document];
  const count = options.count ?? 0;
  const reference = text(options.reference.slice(0, 14));
  const supplierId = invoice.supplier.identifier;
  const customerId = invoice.customer.identifier;
  // An order goes from the buyer to the seller, an invoice the other way.
  const [sender, recipient] =
    type === 'ORDERS' ? [customerId, supplierId] : [supplierId, customerId];
  const issued = invoice.issueDate;
  // Date and time of preparation, YYMMDD:HHMM: the document's issue time.
  const prepared = `${ymd(issued).slice(2)}:${text(issued.slice(11, 16).replace(':', ''))}`;
  const net = invoice.invoiceLines.reduce((sum, l) => sum + l.taxableAmount, 0);
  const tax = invoice.invoiceLines.reduce((sum, l) => sum + l.taxAmount, 0);
  const supplier = nad(
    'SU',
    invoice.supplier.identifier,
    invoice.supplier.name,
    invoice.supplier.address,
  );
  const buyer = nad(
    'BY',
    invoice.customer.identifier,
    invoice.customer.name,
    invoice.customer.address,
  );
  const lines = invoice.invoiceLines.flatMap((l, i) => [
    `LIN+${i + 1}++${text(l.itemNo)}:SA`,
    `IMD+F++:::${text(l.name)}`,
    `QTY+${type === 'ORDERS' ? '21' : '47'}:${text(l.quantity)}:${text(l.unitOfMeasure.unit)}`,
    `MOA+203:${decimal(l.taxableAmount)}`,
    `PRI+AAA:${decimal(l.unitPriceAmount)}`,
    ...(type === 'ORDERS'
      ? []
      : [`TAX+7+VAT+++:::${text(l.taxPercentage)}`, `MOA+124:${decimal(l.taxAmount)}`]),
  ]);
  const message = [
    `UNH+1+${type}:D:96A:UN`,
    `BGM+${DOCUMENT_CODE[document]}+${text(invoice.invoiceNo)}+9`,
    `DTM+137:${ymd(issued)}:102`,
    ...(count > 0 ? [FILL_MARK] : []),
    ...(type === 'ORDERS'
      ? [buyer, supplier, `CUX+2:${text(invoice.currencyCode)}:9`]
      : [
          `RFF+ON:${text(invoice.orderReference.documentNo)}`,
          `DTM+171:${ymd(invoice.orderReference.issueDate)}:102`,
          supplier,
          `RFF+VA:${text(invoice.supplier.vatNumber)}`,
          buyer,
          `CUX+2:${text(invoice.currencyCode)}:4`,
        ]),
    ...lines,
    'UNS+S',
    ...(type === 'ORDERS'
      ? [`MOA+79:${decimal(net)}`, `CNT+2:${invoice.invoiceLines.length}`]
      : [
          `MOA+79:${decimal(net)}`,
          `MOA+125:${decimal(net)}`,
          `MOA+124:${decimal(tax)}`,
          `MOA+77:${decimal(net + tax)}`,
        ]),
  ];
  // UNT counts the segments from UNH to UNT, both included, padding segments too.
  const segments = message.length - (count > 0 ? 1 : 0) + count + 1;
  const interchange = [
    "UNA:+.? '",
    `UNB+UNOC:3+${interchangeParty(sender)}+${interchangeParty(recipient)}+${prepared}+${reference}'`,
    ...message.map((segment) => (segment === FILL_MARK ? FILL_MARK : `${segment}'`)),
    `UNT+${segments}+1'`,
    `UNZ+1+${reference}'`,
    '',
  ]
    .join('\n')
    // The padding segments end in their own line break.
    .replace(`${FILL_MARK}\n`, FILL_MARK);
  if (count === 0) {
    return wholeDocument(Buffer.from(interchange, 'latin1'));
  }
  return splitAtFill(interchange, EDIFACT_PADDING_SEGMENT, count, 'latin1');
}
