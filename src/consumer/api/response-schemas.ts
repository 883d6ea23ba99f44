/**
 * Shapes the client expects from the messaging API. A wrong shape is reported as an ApiError
 * where it arrives, instead of surfacing later as `undefined` deep inside the worker. Objects
 * are loose: fields the service adds later (SPEC.md section 9) pass through untouched.
 */
import { z } from 'zod';
import type { MessageDescriptor } from '../../protocol/index.ts';

const party = z.looseObject({
  identifier: z.string(),
  name: z.string(),
  countryCode: z.string(),
});

const documentEntry = z.looseObject({
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

export const messageDescriptor = z.looseObject({
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
  originParty: party,
  destinationParty: party,
  documents: z.array(documentEntry),
}) satisfies z.ZodType<MessageDescriptor>;

export const messageList = z.object({
  items: z.array(messageDescriptor),
  nextCursor: z.string().min(1).nullable(),
});

export const messageStatus = z.looseObject({ status: z.string() });

export const submitInvoiceResult = z.looseObject({
  messageId: z.string().min(1),
  status: z.string(),
});

/** The issues of a failed parse, in one line: `items.0.uniqueId: expected string, ...`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ` : '') + issue.message)
    .join('; ');
}
