/**
 * Shapes of the messaging API's answers where the service's specification leaves them open and
 * this project decided them (docs/decisions.md): the consumer parses answers with them, the simulator's OpenAPI
 * document is generated from them. Objects are loose: fields the service adds later
 * (docs/events.md#versioning) pass through.
 */
import { z } from 'zod';
import { messageDescriptorSchema } from './descriptor.ts';

/** GET /messages: one page, oldest first; `nextCursor` null on the last page. */
export const messageListSchema = z.object({
  items: z.array(messageDescriptorSchema),
  nextCursor: z.string().min(1).nullable(),
});

/** GET /messages/:mid/status. */
export const messageStatusSchema = z.looseObject({ status: z.string() });

/** 201 of POST /transactions/submit-invoice: `received`, or `notset` while more=true. */
export const submitInvoiceResultSchema = z.looseObject({
  messageId: z.string().min(1),
  status: z.string(),
});

/** The optional body of POST /messages/:mid/mark-as-failed. */
export const markAsFailedBodySchema = z.object({ reason: z.string().optional() });

/** RFC 9457 problem details, the error body of every call. */
export const problemSchema = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  /** The query parameter or body field at fault, for a 400 about one. */
  field: z.string().optional(),
  /** Every problem found in the input, for a 400. */
  violations: z.array(z.string()).optional(),
});
