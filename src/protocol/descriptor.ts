/** The message descriptor: GET /messages/:mid, and `data` of message events (docs/events.md#message-descriptor). */
import { z } from 'zod';

/** Identifiers of the standard a Core or Original document follows. */
export interface DocumentTransaction {
  transactionKeyName: string;
  profileIdentifier: string;
  customizationIdentifier: string;
  documentIdentifier: string;
}

export interface DocumentEntry {
  index: number;
  /** Document type name, for example `Invoice`; routing filters match on it. */
  name: string;
  contentType: string;
  /** `Core` or `Original`. */
  attachmentType: string;
  isTransformed: boolean;
  transaction?: DocumentTransaction;
}

export interface Party {
  identifier: string;
  name: string;
  countryCode: string;
}

export interface MessageDescriptor {
  /** Equal to the event's messageId. */
  uniqueId: string;
  timeReceived: string;
  documentNo: string;
  /** Delivery status (docs/statuses.md#transitions). */
  status: string;
  transfer: 'inbound' | 'outbound';
  validationStatus: string;
  taxReportingStatus: string;
  lifecycleStatus: string;
  importStatus: string;
  /** Business transaction name; selects the GET /transactions/... call. */
  action: string;
  originParty: Party;
  destinationParty: Party;
  documents: DocumentEntry[];
}

const partySchema = z.looseObject({
  identifier: z.string(),
  name: z.string(),
  countryCode: z.string(),
});

const documentEntrySchema = z.looseObject({
  index: z.number().int(),
  name: z.string(),
  contentType: z.string(),
  attachmentType: z.string(),
  isTransformed: z.boolean(),
  transaction: z
    .looseObject({
      transactionKeyName: z.string(),
      profileIdentifier: z.string(),
      customizationIdentifier: z.string(),
      documentIdentifier: z.string(),
    })
    .exactOptional(),
});

/**
 * The descriptor's shape. Objects are loose: fields the service adds later (docs/events.md#versioning)
 * pass through untouched.
 */
export const messageDescriptorSchema = z.looseObject({
  uniqueId: z.string().min(1),
  timeReceived: z.string(),
  documentNo: z.string(),
  status: z.string(),
  transfer: z.enum(['inbound', 'outbound']),
  validationStatus: z.string(),
  taxReportingStatus: z.string(),
  lifecycleStatus: z.string(),
  importStatus: z.string(),
  action: z.string(),
  originParty: partySchema,
  destinationParty: partySchema,
  documents: z.array(documentEntrySchema),
}) satisfies z.ZodType<MessageDescriptor>;

/** The descriptor in `value`, or undefined when it does not have the documented shape. */
export function parseMessageDescriptor(value: unknown): MessageDescriptor | undefined {
  const result = messageDescriptorSchema.safeParse(value);
  return result.success ? result.data : undefined;
}
