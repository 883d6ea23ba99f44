/** `data` of status events and the validation findings inside it (docs/events.md#status-properties, docs/events.md#validation-results). */
import { z } from 'zod';
import type { StatusAction } from './event-actions.ts';
import { parseBoundedJson, WEBHOOK_JSON_LIMITS } from './json-shape.ts';

/**
 * The properties of a status change (docs/events.md#status-properties): name/value pairs, all
 * values strings. Which names occur depends on the context (the table in that section), so
 * none is guaranteed; the service may add names at any time and a consumer ignores the ones it
 * does not know (docs/events.md#versioning). When an action caused the change,
 * actionMessageId and actionName come first.
 */
export interface StatusProperties {
  /**
   * Error code from a tax authority or the network, or the rule identifier of the first
   * validation error (e.g. `BR-02`). With a failure (validation, delivery, tax report).
   */
  errorCode?: string;
  /** Text matching errorCode, or the reason for a failure without a code; on `retrying`, the first failure. */
  errorMessage?: string;
  /**
   * Validation findings: a JSON array of ValidationResult serialized into a string (parse it with
   * parseValidationResults), errors first. With a change to failed or pendingdelivery when
   * validation found errors or warnings; left out when there are none.
   */
  validationResults?: string;
  /**
   * Message identifier (UUID) of the action message (an MLA) that caused the change. Only in
   * the event of the participant that took the action.
   */
  actionMessageId?: string;
  /**
   * The action: `RegisterFiscalEvidence`, `RegisterTaxableDelivery` (tax reporting),
   * `RegisterPayment`, `RegisterRejection` (lifecycle); the values the service shows.
   */
  actionName?: string;
  /** Country whose rules apply, e.g. `Croatia`, `Slovakia`. */
  jurisdiction?: string;
  /** Side that took the action: `Supplier` or `Customer`. */
  role?: string;
  /** Reason given by a person (a rejection), or the note when a message was parked. */
  reason?: string;
  /** Type of a rejection: `MismatchNotAffectingTaxes`, `MismatchAffectingTaxes`, `Other`. */
  rejectionType?: string;
  /** Registered payment amount, a decimal number as a string (`1250.00`). */
  paidAmount?: string;
  /** Registered payment date, `YYYY-MM-DD`. */
  paymentDate?: string;
  /** Names not listed here: the service may add them; ignore what you do not know. */
  [name: string]: string;
}

/** `data` of a status event (docs/events.md#status-properties). */
export interface StatusChange {
  /**
   * The status before the change, a value of the kind the action names (DeliveryStatus,
   * TaxReportingStatus or LifecycleStatus). Compare it with the stored value: a difference
   * means events were missed or arrive out of order.
   */
  formerValue: string;
  /** The status after the change; a consumer may apply it directly, ordered by occurredAt. */
  newValue: string;
  /** Present only when the change has details; no name is guaranteed. */
  properties?: StatusProperties;
}

/** The property names of StatusProperties. Others may appear at any time. */
export type StatusPropertyName = (typeof STATUS_PROPERTY_NAMES)[number];

/** Property names documented in docs/events.md#status-properties. Others may appear at any time. */
export const STATUS_PROPERTY_NAMES = [
  'errorCode',
  'errorMessage',
  'validationResults',
  'actionMessageId',
  'actionName',
  'jurisdiction',
  'role',
  'reason',
  'rejectionType',
  'paidAmount',
  'paymentDate',
] as const;

/**
 * Which properties accompany which status event, the specification's table
 * (docs/events.md#status-properties): the names a consumer may meet on each action. None is
 * ever guaranteed, and a name not listed may still come (the service adds names at any time).
 */
export const STATUS_PROPERTIES_BY_ACTION: Record<StatusAction, readonly StatusPropertyName[]> = {
  // A failure (validation, delivery), its findings, or the note of a parked message.
  messageStatusChanged: ['errorCode', 'errorMessage', 'validationResults', 'reason'],
  // The action message that reported to the tax authority, and its refusal if any.
  taxReportingStatusChanged: [
    'actionMessageId',
    'actionName',
    'jurisdiction',
    'role',
    'errorCode',
    'errorMessage',
  ],
  // The action message, and the rejection's or the payment's details.
  lifecycleStatusChanged: [
    'actionMessageId',
    'actionName',
    'jurisdiction',
    'role',
    'rejectionType',
    'reason',
    'paidAmount',
    'paymentDate',
  ],
};

/**
 * One validation finding, an element of the `validationResults` property
 * (docs/events.md#validation-results). Exists only in webhook events: GET /messages/:mid does
 * not return findings.
 */
export interface ValidationResult {
  /** `error` or `warning`; errors come first in the array. */
  type: 'error' | 'warning';
  /** Rule identifier (e.g. `BR-02`, `PEPPOL-EN16931-R010`), or `schema` for a schema error. */
  code: string;
  /** What is wrong, in words. */
  message: string;
  /** XPath of the element at fault (e.g. `/Invoice/cbc:ID`), or line and position for a schema error. */
  location: string;
}

/** The shape of one entry, for documents generated from the code (OpenAPI). */
export const validationResultSchema = z.looseObject({
  type: z.enum(['error', 'warning']),
  code: z.string(),
  message: z.string(),
  location: z.string(),
}) satisfies z.ZodType<ValidationResult>;

/** Errors come first in validationResults; this keeps a list in that order. */
export function sortValidationResults(results: readonly ValidationResult[]): ValidationResult[] {
  return [...results].sort((a, b) => rank(a) - rank(b));
}

/**
 * Parses the `validationResults` property, a JSON array serialized into a string. Entries that
 * are not objects with string fields are dropped rather than failing the whole event: the
 * findings are informative, and the status change they accompany must still be applied. The
 * same goes for a string whose JSON breaks the shape limits (json-shape.ts): a string inside a
 * checked body is a JSON text of its own, checked again before it is parsed.
 */
export function parseValidationResults(json: string | undefined): ValidationResult[] {
  if (json === undefined || json === '') return [];
  let parsed: unknown;
  try {
    parsed = parseBoundedJson(json, WEBHOOK_JSON_LIMITS);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const results: ValidationResult[] = [];
  for (const item of parsed) {
    if (typeof item !== 'object' || item === null) continue;
    const { type, code, message, location } = item as Record<string, unknown>;
    if (type !== 'error' && type !== 'warning') continue;
    results.push({
      type,
      code: typeof code === 'string' ? code : '',
      message: typeof message === 'string' ? message : '',
      location: typeof location === 'string' ? location : '',
    });
  }
  return sortValidationResults(results);
}

/** `data` of a status event; property values are strings (docs/events.md#status-properties). */
export const statusChangeSchema = z.looseObject({
  formerValue: z.string(),
  newValue: z.string(),
  properties: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The status change in `value`, or undefined without formerValue and newValue strings.
 * Property values that are not strings are dropped (docs/events.md#status-properties: all values are strings);
 * unknown names are kept, never required.
 */
export function parseStatusChange(value: unknown): StatusChange | undefined {
  const result = statusChangeSchema.safeParse(value);
  if (!result.success) return undefined;
  const { formerValue, newValue, properties } = result.data;
  if (properties === undefined) return { formerValue, newValue };
  const strings = Object.fromEntries(
    Object.entries(properties).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
  return { formerValue, newValue, properties: strings };
}

function rank(result: ValidationResult): number {
  return result.type === 'error' ? 0 : 1;
}
