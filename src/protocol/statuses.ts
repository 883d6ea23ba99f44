/**
 * Message statuses of docs/statuses.md#transitions. Each side of a message has three that
 * change independently: the delivery status, the tax reporting status and the lifecycle status.
 */

/**
 * Delivery status (the descriptor's `status`, `newValue` of messageStatusChanged):
 * `received` and `notset` on submission (`notset` while more documents are expected),
 * `pendingdelivery` (validated; inbound: ready to fetch), `retrying`, `delivered`,
 * `pendingfailure` (handed to manual handling, not final), `failed`, `parked` (set by hand).
 * Statuses of an optional inbound processing step are not shown.
 */
export const DELIVERY_STATUSES = [
  'received',
  'notset',
  'pendingdelivery',
  'retrying',
  'delivered',
  'pendingfailure',
  'failed',
  'parked',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A message in a final state changes again only when someone retries it manually. */
export const FINAL_DELIVERY_STATUSES: ReadonlySet<string> = new Set([
  'delivered',
  'failed',
  'parked',
]);

/** Tax reporting status (taxReportingStatusChanged); moves shown: from `none` to each other value. */
export const TAX_REPORTING_STATUSES = ['none', 'electronic', 'non_electronic', 'failed'] as const;
export type TaxReportingStatus = (typeof TAX_REPORTING_STATUSES)[number];

/** Lifecycle status of an invoice (lifecycleStatusChanged): a registered rejection or payment. */
export const LIFECYCLE_STATUSES = ['none', 'rejected', 'paid'] as const;
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number];

/** The outcomes of validation: the only validationStatus values the service shows. */
export const VALIDATION_STATUSES = ['approved', 'rejected'] as const;
export type ValidationStatus = (typeof VALIDATION_STATUSES)[number];

/**
 * What a descriptor carries before validation has run (an outbound message's `created`
 * event): the service shows no value for it, so this project decided one (docs/decisions.md).
 * A consumer treats any value but an outcome as "not decided yet".
 */
export const VALIDATION_NOT_RUN = 'none';

/** True for `approved` and `rejected`, the values that say validation has run. */
export function isValidationOutcome(value: string | null | undefined): value is ValidationStatus {
  return (VALIDATION_STATUSES as readonly (string | null | undefined)[]).includes(value);
}

/** The side of a message: `inbound` (received by the participant) or `outbound` (sent by it). */
export const TRANSFERS = ['inbound', 'outbound'] as const;
export type Transfer = (typeof TRANSFERS)[number];
