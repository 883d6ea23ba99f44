/**
 * The textual forms of the specification's values (docs/events.md, docs/messaging-api.md), as
 * regular expressions. The simulator writes and validates these forms, and the OpenAPI document
 * states them as `pattern`s. The consumer parses more leniently on purpose (an envelope's
 * `occurredAt` with an offset is still an event to store): these say what the service sends,
 * not what a consumer must refuse.
 */

/** A participant identifier, `<scheme>:<number>` (`0192:999999999`): an envelope's `party`. */
export const PARTY_IDENTIFIER = /^[0-9A-Za-z]+:[^\s:]+$/;

/** ISO 8601 UTC with milliseconds (`2026-01-05T09:00:00.123Z`): occurredAt, an invoice's issueDate. */
export const UTC_MILLISECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** ISO 8601 UTC in whole seconds (`2026-01-05T09:00:00Z`): a descriptor's timeReceived. */
export const UTC_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** Any ISO 8601 date-time with a zone, `Z` or an offset: an order reference's issueDate. */
export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A calendar date, `YYYY-MM-DD`: paymentDate. */
export const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A decimal number written as a string (`1250.00`): paidAmount. */
export const DECIMAL_STRING = /^-?\d+(\.\d+)?$/;

/**
 * An e-mail address as the simulator checks it: one `@` with text around it. Looser than
 * JSON Schema's `email` format on purpose; the service's own rule is not shown.
 */
export const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+$/;
