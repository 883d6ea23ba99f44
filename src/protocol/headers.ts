/** Header names and fixed values of a webhook request (docs/signature.md#webhook-request). */
export const SIGNATURE_HEADER = 'svc-webhook-signature';
export const EVENT_ID_HEADER = 'svc-webhook-event-id';
export const ACTION_HEADER = 'svc-webhook-action';
export const TRANSFER_HEADER = 'svc-webhook-transfer';

/** The User-Agent carries the webhook protocol version (docs/events.md#versioning). */
export const WEBHOOK_USER_AGENT = 'Service-Webhooks/2';
export const WEBHOOK_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A consumer has this long to answer before the attempt counts as failed (docs/retries.md#consumer-answer). */
export const WEBHOOK_RESPONSE_TIMEOUT_MS = 5_000;

/** Only these answers are a successful delivery; any other 2xx or a redirect is a failure. */
export const WEBHOOK_SUCCESS_STATUSES: ReadonlySet<number> = new Set([200, 201, 202, 204]);
