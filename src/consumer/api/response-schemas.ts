/**
 * Shapes the client expects from the messaging API. A wrong shape is reported as an ApiError
 * where it arrives, instead of surfacing later as `undefined` deep inside the worker. Objects
 * are loose: fields the service adds later (SPEC.md section 9) pass through untouched.
 */
import { z } from 'zod';
import { messageDescriptorSchema } from '../../protocol/index.ts';

export const messageList = z.object({
  items: z.array(messageDescriptorSchema),
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
