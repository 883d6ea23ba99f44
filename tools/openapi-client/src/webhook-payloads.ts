/**
 * Webhook bodies typed from the document's `webhooks`, the same schemas the API answers use: a
 * forker's endpoint in any TypeScript project can take these types instead of writing its own.
 * The body must still be verified over its raw bytes before it is parsed (docs/signature.md);
 * these types say what a verified body holds, they check nothing at run time.
 */
import type { webhooks } from '../generated/openapi.ts';

/** The body of a webhook request with the action `A`. */
export type WebhookPayload<A extends keyof webhooks> =
  webhooks[A]['post']['requestBody']['content']['application/json'];

export type MessageStatusChanged = WebhookPayload<'messageStatusChanged'>;

/** One line for a log: which message moved from which delivery status to which, and why. */
export function describeStatusChange(event: MessageStatusChanged): string {
  const { formerValue, newValue, properties } = event.data;
  const code = properties?.errorCode;
  const reason = code === undefined ? '' : ` (${code})`;
  return `${event.messageId} ${event.transfer}: ${formerValue} -> ${newValue}${reason}`;
}
