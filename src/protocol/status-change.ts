/** `data` of status events and the validation findings inside it (docs/events.md#status-properties, docs/events.md#validation-results). */
import { z } from 'zod';

export interface StatusChange {
  formerValue: string;
  newValue: string;
  /**
   * Name/value pairs, all strings, present only when the change has details. No name is
   * guaranteed and unknown names must be ignored (docs/events.md#versioning).
   */
  properties?: Record<string, string>;
}

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

export interface ValidationResult {
  type: 'error' | 'warning';
  /** Rule identifier, or `schema` for a schema error. */
  code: string;
  message: string;
  /** XPath, or line and position for a schema error. */
  location: string;
}

/** The shape of one entry, for documents generated from the code (OpenAPI). */
export const validationResultSchema = z.object({
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
 * findings are informative, and the status change they accompany must still be applied.
 */
export function parseValidationResults(json: string | undefined): ValidationResult[] {
  if (json === undefined || json === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
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
