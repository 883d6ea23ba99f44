/** Bodies of the scenario admin API, validated with zod; a bad field is named in the 400. */
import { z } from 'zod';
import { InvalidRequestError } from '../errors.ts';

const identifier = z
  .string()
  .regex(/^[0-9A-Za-z]+:[^\s:]+$/, 'must be of the form <scheme>:<number>');
const transfer = z.enum(['inbound', 'outbound']);
const jurisdiction = z.enum(['Croatia', 'Slovakia']);

export const participantSchema = z.object({
  identifier,
  name: z.string().min(1),
  countryCode: z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter country code'),
});

export const inboundSchema = z.object({
  from: identifier.optional(),
  to: identifier.optional(),
  /** Deep-merged into the sample invoice; null removes an element. */
  invoice: z.record(z.string(), z.unknown()).optional(),
  messageHandling: z.record(z.string(), z.unknown()).optional(),
  warnings: z.boolean().optional(),
});

export const failSchema = z.object({
  errorMessage: z.string().min(1).optional(),
  finalError: z.string().min(1).optional(),
  transfer: transfer.optional(),
  afterMs: z.number().int().min(0).optional(),
});

export const manualFailureSchema = z.object({
  errorMessage: z.string().min(1).optional(),
  transfer: transfer.optional(),
});

export const parkSchema = z.object({ reason: z.string().min(1), transfer: transfer.optional() });
export const retrySchema = z.object({ transfer: transfer.optional() });

export const taxReportSchema = z.object({
  jurisdiction,
  status: z.enum(['electronic', 'non_electronic', 'failed']),
  errorCode: z.string().min(1).optional(),
  errorMessage: z.string().min(1).optional(),
  role: z.enum(['Supplier', 'Customer']).optional(),
  actor: identifier.optional(),
});

export const paymentSchema = z.object({
  paidAmount: z
    .union([
      z.string().regex(/^\d+(\.\d+)?$/, 'must be a decimal number'),
      z.number().nonnegative(),
    ])
    .transform(String),
  paymentDate: z.iso.date(),
  actor: identifier.optional(),
  jurisdiction: jurisdiction.optional(),
});

export const rejectionSchema = z.object({
  rejectionType: z.enum(['MismatchNotAffectingTaxes', 'MismatchAffectingTaxes', 'Other']),
  reason: z.string().min(1),
  actor: identifier.optional(),
  jurisdiction: jurisdiction.optional(),
});

export const faultSchema = z.object({
  count: z.number().int().min(1),
  mode: z.enum(['500', '503', '429', 'hang', 'undated']),
  retryAfterSeconds: z.number().int().min(0).optional(),
  pathPrefix: z.string().startsWith('/').optional(),
  hangMs: z.number().int().min(0).optional(),
});

/** Parses `body` (an absent body counts as `{}`) or throws an InvalidRequestError naming the field. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') ?? '';
  throw new InvalidRequestError(
    field === '' ? (issue?.message ?? 'invalid body') : `${field}: ${issue?.message}`,
    field === '' ? undefined : field,
  );
}
