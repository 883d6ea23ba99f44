/**
 * The JSON of a SubmitInvoice message (docs/messaging-api.md#submit-invoice-body): the types of
 * its elements and the schema of its mandatory ones. transaction-types.ts says how the types
 * and the schema are meant to be read, and re-exports both.
 */
import { z } from 'zod';

/** A postal address of the supplier or the customer. */
export interface InvoiceAddress {
  /** Street name and building number on one line, e.g. `Storgata 1`. */
  streetNameAndNumber: string;
  /** City name. */
  city: string;
  /** Postal code, a string (leading zeros matter: `0155`). */
  postalZone: string;
  /** Country code, e.g. `NO`; the allowed values are not shown (ISO 3166-1 alpha-2 in practice). */
  countryCode: string;
  /** Optional (this project's): a second address line. */
  additionalStreetName?: string;
  /** Optional (this project's): region or county. */
  countrySubentity?: string;
}

/** One invoice line; `invoice.invoiceLines` has at least one. */
export interface InvoiceLine {
  /** The seller's item number. */
  itemNo: string;
  /** Item name, as shown on the invoice. */
  name: string;
  /** Invoiced quantity, in `unitOfMeasure.unit`; a JSON number. */
  quantity: number;
  /**
   * `unit`: the unit name, a word such as `kilogram`; the allowed values are not shown (the
   * simulator maps the words of docs/peppol.md#codes, in any case, to UN/ECE Recommendation 20
   * codes, and takes such a code as it is).
   */
  unitOfMeasure: { unit: string };
  /** Net price of one unit, in `invoice.currencyCode`; a JSON number. */
  unitPriceAmount: number;
  /**
   * Tax category name, e.g. `standard`; the allowed values are not shown (the simulator maps
   * the words of docs/peppol.md#codes, in any case, to UNCL 5305 codes).
   */
  taxCategoryType: string;
  /** Line net amount (quantity times unit price, after line discounts), a JSON number. */
  taxableAmount: number;
  /** Tax of the line, a JSON number; expected to be taxableAmount x taxPercentage / 100. */
  taxAmount: number;
  /** Tax rate in percent, e.g. `25`; a JSON number. */
  taxPercentage: number;
  /** Optional (this project's): a longer item description. */
  description?: string;
  /** Optional (this project's): the buyer's item number. */
  buyersItemNo?: string;
  /** Optional (this project's): the line of the buyer's order this line answers. */
  orderLineReference?: string;
  /**
   * Optional (this project's): why the line is exempt from VAT, for categories E, AE, K, G and
   * O: a VATEX code (`VATEX-EU-AE`) and/or a text. The VAT breakdown of the line's category
   * takes the first line's.
   */
  taxExemptionReasonCode?: string;
  taxExemptionReason?: string;
}

/**
 * Optional (this project's): a party's registration in a business register (EN 16931 BT-30,
 * BT-47), e.g. `{ id: '999999999', schemeId: '0192' }`; `schemeId` from the ISO 6523 ICD list.
 */
export interface LegalRegistration {
  id: string;
  schemeId?: string;
}

/** Optional (this project's): a contact at a party. */
export interface PartyContact {
  name?: string;
  telephone?: string;
  email?: string;
}

/**
 * Optional (this project's): a document-level allowance (`chargeIndicator: false`) or charge
 * (`true`), with its VAT category like a line's; a reason text or a code (UNCL 5189 for an
 * allowance, UNCL 7161 for a charge) is required. `baseAmount` and `percentage` go together.
 */
export interface DocumentAllowanceCharge {
  chargeIndicator: boolean;
  amount: number;
  reason?: string;
  reasonCode?: string;
  baseAmount?: number;
  percentage?: number;
  taxCategoryType: string;
  taxPercentage: number;
}

/** Optional (this project's): how the buyer pays. */
export interface PaymentMeans {
  /** UNCL 4461 payment means code: `30` credit transfer, `58` SEPA credit transfer, `49`/`59` direct debit... */
  code: string;
  /** The reference the buyer quotes with the payment (KID, OCR, structured reference). */
  paymentId?: string;
  /** The account to pay to: an IBAN or a local account number. Required for `30` and `58`. */
  accountId?: string;
  accountName?: string;
  /** The account's bank: a BIC. */
  bic?: string;
  /** Direct debit (`49`, `59`): the mandate's reference (required) and the account debited. */
  mandateId?: string;
  payerAccountId?: string;
}

/** Optional (this project's): where and when the goods or services were delivered. */
export interface InvoiceDelivery {
  /** `YYYY-MM-DD`. */
  date?: string;
  /** The party delivered to. */
  name?: string;
  address?: InvoiceAddress;
}

/** Optional (this project's): one group of the VAT breakdown, when the sender gives it. */
export interface TaxBreakdownEntry {
  taxCategoryType: string;
  taxPercentage: number;
  taxableAmount: number;
  taxAmount: number;
  taxExemptionReasonCode?: string;
  taxExemptionReason?: string;
}

/** The seller. */
export interface InvoiceSupplier {
  /** The supplier's VAT number, e.g. `NO999999999MVA`; the customer has none in the minimum body. */
  vatNumber: string;
  /** Legal name. */
  name: string;
  /** Network identifier, `<scheme>:<number>` (e.g. `0192:111111111`); the descriptor's originParty. */
  identifier: string;
  address: InvoiceAddress;
  /** Optional (this project's): the name the supplier trades under, when not its legal name. */
  tradingName?: string;
  /**
   * Optional (this project's): the supplier's tax registration other than VAT (EN 16931 BT-32),
   * e.g. `Foretaksregisteret` for a Norwegian company (Peppol's NO-R-002 warns without it).
   */
  taxRegistrationId?: string;
  legalRegistration?: LegalRegistration;
  contact?: PartyContact;
}

/** The buyer: the participant receiving the invoice. */
export interface InvoiceCustomer {
  /** Legal name. */
  name: string;
  /** Network identifier, `<scheme>:<number>`; normally equal to messageHandling.receiverIdentifier. */
  identifier: string;
  address: InvoiceAddress;
  /** Optional (this project's): the buyer's VAT number, with its country prefix (`SE556677889901`). */
  vatNumber?: string;
  tradingName?: string;
  legalRegistration?: LegalRegistration;
  contact?: PartyContact;
}

/** The invoice itself. */
export interface InvoiceData {
  /** Invoice number, the sender's; the descriptor's documentNo. Unique per supplier in practice. */
  invoiceNo: string;
  /** Issue date: ISO 8601 date-time, UTC, with milliseconds (`2026-01-05T09:00:00.000Z`). */
  issueDate: string;
  /** Currency of every amount, e.g. `NOK`; the allowed values are not shown (ISO 4217 in practice). */
  currencyCode: string;
  /** The buyer's order this invoice answers. */
  orderReference: {
    /** The order's document number. */
    documentNo: string;
    /** The order's issue date, ISO 8601 date-time. */
    issueDate: string;
  };
  supplier: InvoiceSupplier;
  customer: InvoiceCustomer;
  /** At least one line. */
  invoiceLines: InvoiceLine[];
  /**
   * Optional (this project's): `CreditNote` makes the message a credit note (its core document
   * a UBL CreditNote). @default 'Invoice'
   */
  documentType?: 'Invoice' | 'CreditNote';
  /** Optional (this project's): UNCL 1001 type code. @default '380' (invoice), '381' (credit note) */
  typeCode?: string;
  /** Optional (this project's): payment due date, `YYYY-MM-DD`. */
  dueDate?: string;
  /** Optional (this project's): payment terms as text (`Net 30 days`). */
  paymentTerms?: string;
  paymentMeans?: PaymentMeans;
  /** Optional (this project's): the buyer's reference (a cost centre, a contact), BT-10. */
  buyerReference?: string;
  /** Optional (this project's): a free-text note on the document. */
  note?: string;
  /** Optional (this project's): the invoice a credit note corrects. */
  billingReference?: { invoiceNo: string; issueDate?: string };
  delivery?: InvoiceDelivery;
  allowanceCharges?: DocumentAllowanceCharge[];
  /** Optional (this project's): the VAT breakdown, when not derived from the lines. */
  taxBreakdown?: TaxBreakdownEntry[];
  /** Optional (this project's): an amount already paid, deducted from the amount due. */
  prepaidAmount?: number;
}

/**
 * The JSON of a SubmitInvoice message: `POST /transactions/submit-invoice` takes it, `GET
 * /transactions/submit-invoice?messageId=` answers it as the sender posted it. These are the
 * mandatory elements (the minimum valid body); optional elements of the service are not shown,
 * and arrive as sent.
 */
export interface SubmitInvoiceBody {
  /** How the service routes the message. */
  messageHandling: {
    /** The receiver's network identifier, `<scheme>:<number>`; the descriptor's destinationParty. */
    receiverIdentifier: string;
    /** E-mail address the service falls back to when the receiver cannot be reached electronically. */
    fallbackEmailAddress: string;
  };
  invoice: InvoiceData;
}

const addressSchema = z.looseObject({
  streetNameAndNumber: z.string(),
  city: z.string(),
  postalZone: z.string(),
  countryCode: z.string(),
});

const invoiceLineSchema = z.looseObject({
  itemNo: z.string(),
  name: z.string(),
  quantity: z.number(),
  unitOfMeasure: z.looseObject({ unit: z.string() }),
  unitPriceAmount: z.number(),
  taxCategoryType: z.string(),
  taxableAmount: z.number(),
  taxAmount: z.number(),
  taxPercentage: z.number(),
});

/** The mandatory elements of SubmitInvoiceBody, present and of their JSON type. */
export const submitInvoiceBodySchema = z.looseObject({
  messageHandling: z.looseObject({
    receiverIdentifier: z.string(),
    fallbackEmailAddress: z.string(),
  }),
  invoice: z.looseObject({
    invoiceNo: z.string(),
    issueDate: z.string(),
    currencyCode: z.string(),
    orderReference: z.looseObject({ documentNo: z.string(), issueDate: z.string() }),
    supplier: z.looseObject({
      vatNumber: z.string(),
      name: z.string(),
      identifier: z.string(),
      address: addressSchema,
    }),
    customer: z.looseObject({
      name: z.string(),
      identifier: z.string(),
      address: addressSchema,
    }),
    invoiceLines: z.array(invoiceLineSchema).min(1),
  }),
}) satisfies z.ZodType<SubmitInvoiceBody>;
