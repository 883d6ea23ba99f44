/**
 * One definition of the submit-invoice body: the protocol's type and schema (what an importer
 * parses) agree with the simulator's sample and with the elements its validator requires.
 */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { submitInvoiceBodySchema } from '../../../src/protocol/index.ts';
import { sampleInvoice } from '../../../src/provider/invoice.ts';
import {
  MANDATORY_ELEMENTS,
  MANDATORY_LINE_ELEMENTS,
} from '../../../src/provider/invoice-validation.ts';

const party = (identifier: string) => ({ identifier, name: identifier, countryCode: 'NO' });
const sample = sampleInvoice({
  supplier: party('0192:1'),
  customer: party('0192:2'),
  invoiceNo: 'INV-1',
  issueDate: '2026-01-05T09:00:00.000Z',
});

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
}

/** Every leaf path the schema requires, arrays as `path[]`. */
function requiredLeaves(schema: JsonSchema, prefix = ''): string[] {
  if (schema.type === 'array' && schema.items) {
    return requiredLeaves(schema.items, `${prefix.replace(/\.$/, '')}[].`);
  }
  if (schema.type !== 'object') return [prefix.replace(/\.$/, '')];
  return (schema.required ?? []).flatMap((key) =>
    requiredLeaves(schema.properties?.[key] ?? {}, `${prefix}${key}.`),
  );
}

describe('the submit-invoice body', () => {
  it('the simulator’s sample conforms to the protocol’s schema', () => {
    expect(submitInvoiceBodySchema.safeParse(sample).success).toBe(true);
  });

  it('the protocol’s schema requires exactly the elements the simulator’s validator requires', () => {
    const schema = z.toJSONSchema(submitInvoiceBodySchema, { io: 'input' }) as JsonSchema;
    expect(requiredLeaves(schema).sort()).toEqual(
      [
        ...MANDATORY_ELEMENTS.map((e) => e.path),
        ...MANDATORY_LINE_ELEMENTS.map((e) => `invoice.invoiceLines[].${e.path}`),
      ].sort(),
    );
  });

  it('a body missing an element fails the schema, naming its path', () => {
    const { invoiceNo: _missing, ...invoice } = sample.invoice;
    const result = submitInvoiceBodySchema.safeParse({ ...sample, invoice });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['invoice.invoiceNo']);
  });
});
