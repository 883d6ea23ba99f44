/** The message descriptor: GET /messages/:mid, and `data` of message events (docs/events.md#message-descriptor). */
import { z } from 'zod';
import {
  DELIVERY_STATUSES,
  LIFECYCLE_STATUSES,
  TAX_REPORTING_STATUSES,
  TRANSFERS,
  VALIDATION_NOT_RUN,
  VALIDATION_STATUSES,
} from './statuses.ts';
import { PARTY_IDENTIFIER, UTC_SECONDS } from './wire-formats.ts';

/**
 * Identifiers of the standard a Core or Original document follows (the Peppol document type
 * of a UBL document, for example). Present on each Core and Original entry.
 */
export interface DocumentTransaction {
  /** The service's short name of the transaction, e.g. `PeppolBisBilling3Invoice`. */
  transactionKeyName: string;
  /** Business process (Peppol ProfileID), e.g. `urn:fdc:peppol.eu:2017:poacc:billing:01:1.0`. */
  profileIdentifier: string;
  /** Specification the document conforms to (UBL CustomizationID), e.g. `urn:cen.eu:en16931:2017#compliant#...`. */
  customizationIdentifier: string;
  /** Document type identifier: root namespace, root element, customization and syntax version. */
  documentIdentifier: string;
}

/** One document of a message, an element of the descriptor's `documents`. */
export interface DocumentEntry {
  /** Position in the list, from 0. */
  index: number;
  /**
   * Document type name, e.g. `Invoice`, `CreditNote`, `Order`, `ApplicationResponse`. The Core
   * entry's name is the `<document type>` routing filters match (docs/webhook-endpoints.md#routing).
   */
  name: string;
  /**
   * Media type of the document: `application/xml` (UBL), `application/json`, `application/pdf`,
   * or a plain-text EDI type such as `application/edifact`. The Core entry's is the
   * Content-Type of GET /messages/:mid/documents/core and decides the routing filter's `<format>`.
   */
  contentType: string;
  /**
   * `Core` (the business document, served by GET /messages/:mid/documents/core) or `Original`
   * (the document as the sender sent it); the values seen are those two. Attachments embedded
   * in the core document are not listed separately.
   */
  attachmentType: string;
  /** True when the service converted this document from another format (a transformed document). */
  isTransformed: boolean;
  /** The standard the document follows; present on each Core and Original entry. */
  transaction?: DocumentTransaction;
}

/** A participant of a message: originParty (sender) or destinationParty (receiver). */
export interface Party {
  /** Network identifier, `<scheme>:<number>` (e.g. `0192:999999999`); an envelope's `party` is one. */
  identifier: string;
  /** Name of the participant. */
  name: string;
  /** Country code, e.g. `NO`. */
  countryCode: string;
}

/**
 * The state of one side of a message: GET /messages/:mid answers it, and message events
 * (`created`, `deliveryNotified`) carry it in `data` (docs/events.md#message-descriptor). Dates
 * are ISO 8601 UTC in whole seconds. The service may add fields (docs/events.md#versioning);
 * fields beyond these are not shown. Validation findings are never part of it.
 */
export interface MessageDescriptor {
  /** The message identifier (UUID-shaped), equal to the event's messageId; `:mid` in API paths. */
  uniqueId: string;
  /** When the service received the message, ISO 8601 UTC in whole seconds (`2026-01-05T09:00:00Z`). */
  timeReceived: string;
  /** Document number of the core document, e.g. the invoice number. */
  documentNo: string;
  /**
   * Delivery status of this side (DeliveryStatus, docs/statuses.md#transitions):
   * `pendingdelivery`, `retrying`, `delivered`, `pendingfailure`, `failed`, `parked`; also
   * `received` and `notset` on submission. A string: statuses of optional processing steps are not shown.
   */
  status: string;
  /** Which side this descriptor describes: `inbound` (received) or `outbound` (sent). */
  transfer: 'inbound' | 'outbound';
  /**
   * `approved` or `rejected` once validation has run (ValidationStatus); before that, on an
   * outbound `created` event, the simulator sends `none` (docs/decisions.md#validation-status-before-validation).
   */
  validationStatus: string;
  /** TaxReportingStatus: `none`, `electronic`, `non_electronic`, `failed`. */
  taxReportingStatus: string;
  /** LifecycleStatus: `none`, `rejected`, `paid`. */
  lifecycleStatus: string;
  /** Status of the optional import queue; value seen: `NotSet`. Its other values are not shown. */
  importStatus: string;
  /**
   * Business transaction name, e.g. `SubmitInvoice`, `CorrectWithCredit`, `MessageLevelResponse`.
   * Selects the GET /transactions/<kebab-case action> call that answers the message's JSON
   * (transactionPath; TransactionJsonByAction names the JSON of each).
   */
  action: string;
  /** The sender. */
  originParty: Party;
  /**
   * The receiver. On the outbound side of a SubmitInvoice message its identifier is the body's
   * `messageHandling.receiverIdentifier` as sent, of another form than `<scheme>:<number>`
   * (or empty) when the body's was: such a body is accepted and fails validation
   * (docs/decisions.md#malformed-receiver). On the inbound side it is always of that form.
   */
  destinationParty: Party;
  /**
   * Every document of the message; an inbound `deliveryNotified` lists all of them, including
   * any added on the way. The Core entry is the one to import.
   */
  documents: DocumentEntry[];
}

const partySchema = z.looseObject({
  identifier: z.string().meta({
    description: 'Network identifier, `<scheme>:<number>`.',
    pattern: PARTY_IDENTIFIER.source,
    examples: ['0192:999999999'],
  }),
  name: z.string().meta({ description: 'Name of the participant.' }),
  countryCode: z.string().meta({ description: 'Country code.', examples: ['NO'] }),
});

/**
 * The receiver: a participant's identifier on the inbound side, and on the outbound side the
 * submit-invoice body's receiverIdentifier exactly as sent, which a body that fails validation
 * may have in any form (docs/decisions.md#malformed-receiver). The descriptor states the
 * `<scheme>:<number>` pattern for the inbound side (DESTINATION_FORM_WHEN_INBOUND).
 */
const destinationPartySchema = z.looseObject({
  ...partySchema.shape,
  identifier: z.string().meta({
    description:
      'Network identifier, `<scheme>:<number>`: always of that form on the inbound side (the receiver is a participant). On the outbound side of a SubmitInvoice message it is the body’s messageHandling.receiverIdentifier as sent: a body whose receiver is missing or of another form (`nobody`) is still accepted with 201 and then fails validation, and its descriptor and events name the receiver as written, possibly empty.',
    examples: ['0192:999999999'],
    'x-decision': 'docs/decisions.md#malformed-receiver',
  }),
});

/** JSON Schema: on the inbound side the receiver's identifier has the participant form. */
const DESTINATION_FORM_WHEN_INBOUND = {
  if: { properties: { transfer: { const: 'inbound' } } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, a plain value never awaited.
  then: {
    properties: {
      destinationParty: { properties: { identifier: { pattern: PARTY_IDENTIFIER.source } } },
    },
  },
};

const documentEntrySchema = z.looseObject({
  index: z.number().int().meta({ description: 'Position in the list, from 0.' }),
  name: z.string().meta({
    description: "Document type name; the Core entry's is what routing filters match.",
    examples: ['Invoice', 'CreditNote', 'Order', 'ApplicationResponse'],
  }),
  contentType: z.string().meta({
    description: 'Media type of the document.',
    examples: ['application/xml', 'application/json', 'application/pdf', 'application/edifact'],
  }),
  attachmentType: z.string().meta({
    description: 'Values seen: `Core` (the document to import) and `Original`; others may occur.',
    examples: ['Core', 'Original'],
  }),
  isTransformed: z.boolean().meta({
    description: 'True when the service converted this document from another format.',
  }),
  transaction: z
    .looseObject({
      transactionKeyName: z.string().meta({ examples: ['PeppolBisBilling3Invoice'] }),
      profileIdentifier: z.string().meta({
        examples: ['urn:fdc:peppol.eu:2017:poacc:billing:01:1.0'],
      }),
      customizationIdentifier: z.string(),
      documentIdentifier: z.string(),
    })
    .exactOptional()
    .meta({
      description:
        'Identifiers of the standard the document follows; present on each Core and Original entry.',
    }),
});

/**
 * The descriptor's shape. Objects are loose: fields the service adds later (docs/events.md#versioning)
 * pass through untouched. The metadata (`.meta`) is for the OpenAPI document: the values the
 * service is known to send and the forms it writes (wire-formats.ts). Parsing checks only
 * presence and JSON types, so a value the document does not list still parses.
 */
const descriptorFields = z.looseObject({
  uniqueId: z
    .string()
    .min(1)
    .meta({
      description: "The message identifier (UUID-shaped), equal to the event's messageId.",
      examples: ['0f9f4c1e-6a44-4b8e-9a53-1f0c2b7d9e21'],
    }),
  timeReceived: z.string().meta({
    description: 'When the service received the message: ISO 8601 UTC in whole seconds.',
    pattern: UTC_SECONDS.source,
    examples: ['2026-01-05T09:00:00Z'],
  }),
  documentNo: z.string().meta({ description: 'Document number of the core document.' }),
  status: z.string().meta({
    description:
      'Delivery status. The known values are the examples; an inbound processing step adds statuses of its own that are not shown, so the set is open.',
    examples: [...DELIVERY_STATUSES],
  }),
  transfer: z.enum(TRANSFERS).meta({ description: 'Which side this descriptor describes.' }),
  validationStatus: z.string().meta({
    description:
      'Values seen: `approved` and `rejected` once validation ran. Before that (an outbound `created` event) the simulator sends `none`, a value this project decided (docs/decisions.md#validation-status-before-validation).',
    examples: [...VALIDATION_STATUSES, VALIDATION_NOT_RUN],
  }),
  taxReportingStatus: z.string().meta({ enum: [...TAX_REPORTING_STATUSES] }),
  lifecycleStatus: z.string().meta({ enum: [...LIFECYCLE_STATUSES] }),
  importStatus: z.string().meta({
    description: 'Status of the optional import queue; value seen: `NotSet`, others not shown.',
    examples: ['NotSet'],
  }),
  action: z.string().meta({
    description:
      'Business transaction name; selects the GET /transactions/<kebab-case action> call that answers the JSON. Open: the service names more transactions than it shows.',
    examples: [
      'SubmitInvoice',
      'CorrectWithCredit',
      'MessageLevelResponse',
      'EMessageLevelResponse',
    ],
  }),
  originParty: partySchema.meta({ description: 'The sender.' }),
  destinationParty: destinationPartySchema.meta({ description: 'The receiver.' }),
  documents: z.array(documentEntrySchema).meta({
    description: 'Every document of the message; the Core entry is the one to import.',
  }),
});

/** The descriptor, with the one form that depends on its side: the receiver's identifier. */
export const messageDescriptorSchema = descriptorFields.meta(
  DESTINATION_FORM_WHEN_INBOUND,
) satisfies z.ZodType<MessageDescriptor>;

/** The descriptor in `value`, or undefined when it does not have the documented shape. */
export function parseMessageDescriptor(value: unknown): MessageDescriptor | undefined {
  const result = messageDescriptorSchema.safeParse(value);
  return result.success ? result.data : undefined;
}
