/** Building blocks of the OpenAPI document: references, answers, the project's marks and what the paths share. */
import { z } from 'zod';
import { TRANSFERS } from '../../protocol/index.ts';

export type Schema = Record<string, unknown>;

/** A zod schema as JSON Schema 2020-12, without the `$schema` key (OpenAPI sets the dialect). */
export function json(schema: z.ZodType): Schema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  }) as Schema;
  return rest;
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * Marks what this project decided where the service's specification is silent, with the
 * section of docs/decisions.md that says why. A reader (or a tool) tells the service's
 * contract from the simulator's choices by it.
 */
export function decided(anchor: string): { 'x-decision': string } {
  return { 'x-decision': `docs/decisions.md#${anchor}` };
}

const retryAfter = (required: boolean) => ({
  'Retry-After': {
    description: 'Seconds to wait before the next call.',
    required,
    schema: { type: 'integer', minimum: 0 },
  },
});

/** A problem answer; `retryAfter` describes the header, `always` when every answer has it. */
export const problem = (description: string, retryAfterHeader?: 'always' | 'sometimes') => ({
  description,
  ...(retryAfterHeader === undefined ? {} : { headers: retryAfter(retryAfterHeader === 'always') }),
  content: { 'application/problem+json': { schema: ref('Problem') } },
});

export const jsonAnswer = (description: string, schema: Schema, headers?: Schema) => ({
  description,
  ...(headers === undefined ? {} : { headers }),
  content: { 'application/json': { schema } },
});

/** Answers every call can get: no token, and the faults the simulator's admin API injects. */
export const COMMON_ANSWERS = {
  '401': problem('No or wrong bearer token.'),
  '403': problem(
    'The Host or Origin header is not the simulator’s own: its guard against DNS rebinding (the simulator only).',
  ),
  '429': problem(
    'Too many requests (in the simulator: an injected fault); call again after Retry-After.',
    'always',
  ),
  '500': problem('Internal error (in the simulator: an injected fault).'),
  '503': problem(
    'Unavailable (in the simulator: an injected fault); call again, after Retry-After when given.',
    'sometimes',
  ),
};

/** The answer of a call with a body in a content type the operation does not declare. */
export const UNSUPPORTED_MEDIA_TYPE = {
  ...problem(
    'The body is not `application/json` (parameters such as `charset=utf-8` are fine), has no Content-Type, or has a charset or Content-Encoding the simulator does not read; the body is not read. An empty body is not checked.',
  ),
  ...decided('request-content-type'),
};

/** The messaging API's security requirement: its bearer token. */
export const bearer = [{ bearer: [] }];

/** The `transfer` query parameter of the calls about one side of a message. */
export const transferQuery = {
  name: 'transfer',
  in: 'query',
  required: false,
  description:
    'An extension of this simulator: picks the side of a message a participant sent itself; inbound by default. A service may ignore it; a consumer applies an answer to the side its `transfer` names.',
  schema: { type: 'string', enum: [...TRANSFERS] },
  ...decided('transfer-query'),
};
