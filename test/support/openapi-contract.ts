/**
 * A validating layer for the OpenAPI document (docs/openapi.json): checks one messaging API
 * exchange (request and answer) or one webhook request against what the document allows, and
 * says in words what it does not. Built on ajv (JSON Schema 2020-12, the dialect of OpenAPI
 * 3.1) with two additions the document relies on: `contentSchema` is validated, not only an
 * annotation (validationResults is JSON inside a string), and the per-operation extension
 * `x-accepts-invalid-body` lets a body that breaks the schema through (submit-invoice accepts
 * and validates afterwards), counted apart so a test can follow what became of it.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Json;
}

interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Json }> } & Json;
  responses: Record<
    string,
    {
      content?: Record<string, { schema: Json }>;
      headers?: Record<string, { required?: boolean; schema: Json }>;
    }
  >;
}

export interface ApiExchange {
  method: string;
  /** Path and query, as sent. */
  url: string;
  requestHeaders: Record<string, string>;
  requestBody: Buffer;
  status: number;
  responseHeaders: Record<string, string | string[] | undefined>;
  responseBody: Buffer;
}

export interface WebhookRequest {
  headers: Record<string, string>;
  body: Buffer;
}

export interface CheckResult {
  operationId: string | undefined;
  /** What the document does not allow, one sentence each; empty when it all fits. */
  requestViolations: string[];
  responseViolations: string[];
  /** The request body broke its schema on an operation that accepts such bodies. */
  acceptedInvalidBody: boolean;
}

function typeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function isJsonType(type: string): boolean {
  return /^application\/([a-z.+-]+\+)?json$/.test(type);
}

/** A string as the type the parameter's schema asks for (query strings are all text). */
function coerce(value: string, schema: Json): unknown {
  if (schema.type === 'integer' || schema.type === 'number') {
    return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return value;
}

export function createContractChecker(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv);
  // contentSchema is checked against the JSON inside the string; its references point into the
  // document, registered on a second instance as `openapi`.
  const inner = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(inner);
  inner.addSchema(doc, 'openapi');
  ajv.removeKeyword('contentSchema');
  ajv.addKeyword({
    keyword: 'contentSchema',
    schemaType: 'object',
    errors: false,
    compile(schema: Json) {
      const validate = inner.compile(
        JSON.parse(JSON.stringify(schema).replaceAll('"#/', '"openapi#/')),
      );
      return (data: unknown) => {
        if (typeof data !== 'string') return true;
        try {
          return validate(JSON.parse(data)) as boolean;
        } catch {
          return false;
        }
      };
    },
  });
  ajv.addSchema(doc, 'openapi');

  const paths = doc.paths as Record<string, Record<string, Operation>>;
  const webhooks = doc.webhooks as Record<string, { post: Operation }>;
  const templates = Object.keys(paths).map((template) => ({
    template,
    regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, '([^/]+)')}$`),
  }));

  /** Validates `value` against the schema at a JSON pointer into the document. */
  function fits(pointer: string[], value: unknown): string | undefined {
    const encoded = pointer
      .map((s) => encodeURIComponent(s.replaceAll('~', '~0').replaceAll('/', '~1')))
      .join('/');
    const validate = ajv.getSchema(`openapi#/${encoded}`);
    if (validate === undefined) return `no schema at ${pointer.join(' > ')}`;
    if (validate(value)) return undefined;
    return (validate.errors ?? [])
      .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`.trim())
      .join('; ');
  }

  function checkParameters(
    at: string[],
    parameters: Parameter[],
    place: 'query' | 'header',
    given: Map<string, string>,
  ): string[] {
    const problems: string[] = [];
    const declared = parameters.filter((p) => p.in === place);
    for (const [index, parameter] of parameters.entries()) {
      if (parameter.in !== place) continue;
      const key = place === 'header' ? parameter.name.toLowerCase() : parameter.name;
      const value = given.get(key);
      if (value === undefined) {
        if (parameter.required === true) problems.push(`${place} ${parameter.name} is missing`);
        continue;
      }
      const problem = fits(
        [...at, 'parameters', String(index), 'schema'],
        coerce(value, parameter.schema),
      );
      if (problem !== undefined) problems.push(`${place} ${parameter.name}=${value}: ${problem}`);
    }
    if (place === 'query') {
      for (const name of given.keys()) {
        if (!declared.some((p) => p.name === name))
          problems.push(`query ${name} is not in the document`);
      }
    }
    return problems;
  }

  function checkBody(
    at: string[],
    body: Operation['requestBody'],
    contentType: string | undefined,
    raw: Buffer,
  ): { problems: string[]; schemaBroken: boolean } {
    if (raw.length === 0) {
      return {
        problems: body?.required === true ? ['the body is missing'] : [],
        schemaBroken: false,
      };
    }
    if (body === undefined)
      return { problems: ['a body where the document declares none'], schemaBroken: false };
    const type = typeOf(contentType);
    if (body.content[type] === undefined) {
      return { problems: [`body type ${type || '(none)'} is not declared`], schemaBroken: false };
    }
    let value: unknown;
    try {
      value = JSON.parse(raw.toString('utf8'));
    } catch {
      return { problems: ['the body is not JSON'], schemaBroken: false };
    }
    const problem = fits([...at, 'requestBody', 'content', type, 'schema'], value);
    if (problem === undefined) return { problems: [], schemaBroken: false };
    return { problems: [`body: ${problem}`], schemaBroken: true };
  }

  function checkResponse(at: string[], operation: Operation, exchange: ApiExchange): string[] {
    const status = String(exchange.status);
    const key = operation.responses[status] === undefined ? 'default' : status;
    const response = operation.responses[key];
    if (response === undefined) return [`status ${status} is not listed`];
    const problems: string[] = [];
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = exchange.responseHeaders[name.toLowerCase()];
      if (value === undefined) {
        if (header.required === true) problems.push(`header ${name} is missing on ${status}`);
        continue;
      }
      const text = Array.isArray(value) ? value.join(', ') : value;
      const problem = fits(
        [...at, 'responses', key, 'headers', name, 'schema'],
        coerce(text, header.schema),
      );
      if (problem !== undefined) problems.push(`header ${name}: ${problem}`);
    }
    const contentType = exchange.responseHeaders['content-type'];
    const type = typeOf(Array.isArray(contentType) ? contentType[0] : contentType);
    if (response.content === undefined) {
      if (exchange.responseBody.length > 0)
        problems.push(`${status} has a body the document does not declare`);
      return problems;
    }
    if (response.content[type] === undefined) {
      problems.push(`${status} answered ${type || '(no type)'}, not declared`);
      return problems;
    }
    const text = exchange.responseBody.toString('utf8');
    let value: unknown = text;
    if (isJsonType(type)) {
      try {
        value = JSON.parse(text);
      } catch {
        problems.push(`${status} ${type} body is not JSON`);
        return problems;
      }
    }
    const problem = fits([...at, 'responses', key, 'content', type, 'schema'], value);
    if (problem !== undefined) problems.push(`${status} body: ${problem}`);
    return problems;
  }

  return {
    /** Why `value` does not fit the schema at `pointer` (path segments into the document). */
    problemWith: fits,

    /** One call of the messaging API and its answer. */
    checkApi(exchange: ApiExchange): CheckResult {
      const url = new URL(exchange.url, 'http://contract.invalid');
      const method = exchange.method.toLowerCase();
      const match = templates.find((t) => t.regex.test(url.pathname));
      const operation = match === undefined ? undefined : paths[match.template]?.[method];
      if (match === undefined || operation === undefined) {
        return {
          operationId: undefined,
          requestViolations: [`${exchange.method} ${url.pathname} is not in the document`],
          responseViolations: [],
          acceptedInvalidBody: false,
        };
      }
      const at = ['paths', match.template, method];
      const query = new Map<string, string>();
      const requestViolations: string[] = [];
      for (const [name, value] of url.searchParams) {
        if (query.has(name)) requestViolations.push(`query ${name} is given twice`);
        query.set(name, value);
      }
      requestViolations.push(...checkParameters(at, operation.parameters ?? [], 'query', query));
      if (!/^Bearer \S+$/.test(exchange.requestHeaders.authorization ?? '')) {
        requestViolations.push('no bearer token');
      }
      const body = checkBody(
        at,
        operation.requestBody,
        exchange.requestHeaders['content-type'],
        exchange.requestBody,
      );
      const acceptedInvalidBody =
        body.schemaBroken && operation.requestBody?.['x-accepts-invalid-body'] !== undefined;
      if (!acceptedInvalidBody) requestViolations.push(...body.problems);
      return {
        operationId: operation.operationId,
        requestViolations,
        responseViolations: checkResponse(at, operation, exchange),
        acceptedInvalidBody,
      };
    },

    /** One webhook request the service sent, checked by the action its body names. */
    checkWebhook(request: WebhookRequest): CheckResult {
      let action: unknown;
      try {
        action = (JSON.parse(request.body.toString('utf8')) as Json).action;
      } catch {
        action = undefined;
      }
      const hook = typeof action === 'string' ? webhooks[action]?.post : undefined;
      if (hook === undefined) {
        return {
          operationId: undefined,
          requestViolations: [`webhook for action ${String(action)} is not in the document`],
          responseViolations: [],
          acceptedInvalidBody: false,
        };
      }
      const at = ['webhooks', action as string, 'post'];
      const headers = new Map(
        Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]),
      );
      const requestViolations = [
        ...checkParameters(at, hook.parameters ?? [], 'header', headers),
        ...checkBody(at, hook.requestBody, request.headers['content-type'], request.body).problems,
      ];
      return {
        operationId: hook.operationId,
        requestViolations,
        responseViolations: [],
        acceptedInvalidBody: false,
      };
    },
  };
}

export type ContractChecker = ReturnType<typeof createContractChecker>;
