/**
 * The SubmitInvoice schema, built from the elements the simulator's validator checks
 * (invoice-validation.ts) so that the document and the validation agree: every element shown
 * is mandatory, non-empty and of its kind's form (KIND_FORMS).
 */
import {
  KIND_FORMS,
  type Kind,
  MANDATORY_ELEMENTS,
  MANDATORY_LINE_ELEMENTS,
} from '../invoice-validation.ts';
import type { Schema } from './parts.ts';

function kindSchema(kind: Kind): Schema {
  const form = KIND_FORMS[kind];
  if (form.type === 'number') return { type: 'number' };
  if (form.pattern === undefined) return { type: 'string', minLength: 1 };
  return {
    type: 'string',
    minLength: 1,
    pattern: form.pattern.source,
    description: `Must be ${form.expected}.`,
  };
}

/** Objects along the elements' paths; each object requires what it holds, and stays open. */
function tree(elements: readonly { path: string; kind: Kind }[]): Schema {
  const root: Schema = { type: 'object', properties: {}, required: [] };
  for (const element of elements) {
    let node = root;
    const keys = element.path.split('.');
    keys.forEach((key, index) => {
      const properties = node.properties as Record<string, Schema>;
      const required = node.required as string[];
      if (!required.includes(key)) required.push(key);
      if (index === keys.length - 1) {
        properties[key] = kindSchema(element.kind);
      } else {
        properties[key] ??= { type: 'object', properties: {}, required: [] };
        node = properties[key];
      }
    });
  }
  return root;
}

export function submitInvoiceSchema(): Schema {
  const body = tree(MANDATORY_ELEMENTS);
  const invoice = (body.properties as Record<string, Schema>).invoice as Schema;
  (invoice.properties as Record<string, Schema>).invoiceLines = {
    type: 'array',
    minItems: 1,
    items: tree(MANDATORY_LINE_ELEMENTS),
  };
  (invoice.required as string[]).push('invoiceLines');
  return {
    ...body,
    title: 'SubmitInvoice',
    description:
      'A valid submit-invoice body: the mandatory elements of the specification (docs/messaging-api.md#submit-invoice-body), each present, non-empty and of its form. The service has optional elements that are not shown; they are kept as sent, so every object is open. The service validates after accepting (a 201 says nothing about validity): a body that breaks this schema is still answered 201, and then fails validation, announced by messageStatusChanged to `failed` with errorCode, errorMessage and validationResults (code `schema` for an element of the wrong form, the rule identifier for a missing one).',
  };
}
