/**
 * Shapes the client expects from the messaging API. A wrong shape is reported as an ApiError
 * where it arrives, instead of surfacing later as `undefined` deep inside the worker. Objects
 * are loose: fields the service adds later (docs/events.md#versioning) pass through untouched.
 */
import type { z } from 'zod';

// One definition in the protocol: the simulator's OpenAPI document is generated from it.
export {
  messageListSchema as messageList,
  messageStatusSchema as messageStatus,
  submitInvoiceResultSchema as submitInvoiceResult,
} from '../../protocol/index.ts';

/** The issues of a failed parse, in one line: `items.0.uniqueId: expected string, ...`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ` : '') + issue.message)
    .join('; ');
}
