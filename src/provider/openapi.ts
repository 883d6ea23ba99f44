/**
 * The OpenAPI 3.1 document of the messaging API as this simulator implements it, with a
 * `webhooks` section for every event it sends. Generated from the schemas the code already
 * has: the descriptor, status change, validation result and answer shapes of src/protocol
 * (zod, converted to JSON Schema 2020-12, the dialect of OpenAPI 3.1), the mandatory elements
 * the validator checks, the header names and actions of the protocol. Served at
 * GET /openapi.json; docs/openapi.json is the same document checked in (a test keeps the two
 * equal; `npm run openapi` rewrites it).
 */
import { z } from 'zod';
import {
  ACKNOWLEDGEMENT_RESPONSE_ACTIONS,
  acknowledgementResponseBodySchema,
  MESSAGE_ACTIONS,
  markAsFailedBodySchema,
  messageDescriptorSchema,
  messageListSchema,
  messageStatusSchema,
  problemSchema,
  STATUS_ACTIONS,
  submitInvoiceResultSchema,
  TRANSFERS,
  transactionPath,
  validationResultSchema,
  WEBHOOK_USER_AGENT,
} from '../protocol/index.ts';
import { MANDATORY_ELEMENTS, MANDATORY_LINE_ELEMENTS } from './invoice-validation.ts';

type Schema = Record<string, unknown>;

/** A zod schema as JSON Schema 2020-12, without the `$schema` key (OpenAPI sets the dialect). */
function json(schema: z.ZodType): Schema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  }) as Schema;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The submit-invoice body from the elements the validator checks (docs/messaging-api.md#submit-invoice-body). */
function submitInvoiceBody(): Schema {
  const kinds: Record<string, Schema> = {
    string: { type: 'string' },
    number: { type: 'number' },
    identifier: { type: 'string', pattern: '^[0-9A-Za-z]+:[^\\s:]+$' },
    dateTime: { type: 'string', format: 'date-time' },
    email: { type: 'string', format: 'email' },
  };
  const tree = (elements: readonly { path: string; kind: string }[]): Schema => {
    const root: Schema = { type: 'object', properties: {} };
    for (const element of elements) {
      let node = root;
      const keys = element.path.split('.');
      keys.forEach((key, index) => {
        const properties = node.properties as Record<string, Schema>;
        if (index === keys.length - 1) {
          properties[key] = kinds[element.kind] ?? {};
        } else {
          properties[key] ??= { type: 'object', properties: {} };
          node = properties[key];
        }
      });
    }
    return root;
  };
  const body = tree(MANDATORY_ELEMENTS);
  const invoice = (body.properties as Record<string, Schema>).invoice as Schema;
  (invoice.properties as Record<string, Schema>).invoiceLines = {
    type: 'array',
    minItems: 1,
    items: tree(MANDATORY_LINE_ELEMENTS),
  };
  return {
    ...body,
    description:
      'The minimum body of the submit-invoice call (docs/messaging-api.md#submit-invoice-body); every element shown is mandatory, more are kept as sent. The call accepts any JSON object: validation runs afterwards, and what it finds arrives in the messageStatusChanged event (failed with errorCode, errorMessage and validationResults, or pendingdelivery with warnings).',
  };
}

const bearer = [{ bearer: [] }];
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});
const jsonAnswer = (description: string, schema: Schema) => ({
  description,
  content: { 'application/json': { schema } },
});
const messageIdPath = {
  name: 'mid',
  in: 'path',
  required: true,
  description: 'Message identifier (uniqueId, the event’s messageId).',
  schema: { type: 'string' },
};
const transferQuery = {
  name: 'transfer',
  in: 'query',
  required: false,
  description:
    'Extension of this simulator (not described by the service): picks the side of a message a participant sent itself; inbound by default. A service may ignore it; a consumer applies an answer to the side its `transfer` names (docs/decisions.md#transfer-query).',
  schema: { type: 'string', enum: [...TRANSFERS] },
};
const messageIdQuery = {
  name: 'messageId',
  in: 'query',
  required: true,
  schema: { type: 'string' },
};
const common = {
  '401': problem('No or wrong bearer token.'),
  '429': problem('Injected fault (simulator admin API); retry after Retry-After.'),
  '500': problem('Injected fault (simulator admin API).'),
  '503': problem('Injected fault (simulator admin API); retry.'),
};

function transactionGet(summary: string, schema: Schema) {
  return {
    get: {
      summary,
      security: bearer,
      parameters: [messageIdQuery, transferQuery],
      responses: {
        '200': jsonAnswer('The JSON of the business transaction.', schema),
        '400': problem('messageId missing.'),
        '404': problem('No such message of this business transaction for the participant.'),
        ...common,
      },
    },
  };
}

function webhook(action: string, data: Schema, summary: string) {
  const header = (name: string, schema: Schema, description: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema,
  });
  return {
    post: {
      summary,
      parameters: [
        header(
          'SVC-Webhook-Signature',
          { type: 'string', pattern: '^t=\\d+(,[a-z0-9]+=[0-9a-f]+)+$' },
          '`t=<unix seconds>,v0=<hex>`, one v0 per valid secret: HMAC-SHA256 with the endpoint secret over `<t>.<raw body>` (docs/signature.md).',
        ),
        header(
          'SVC-Webhook-Event-Id',
          { type: 'string' },
          'Same as eventId in the body; not signed.',
        ),
        header(
          'SVC-Webhook-Action',
          { type: 'string', const: action },
          'Same as action in the body; not signed.',
        ),
        header(
          'SVC-Webhook-Transfer',
          { type: 'string', enum: [...TRANSFERS] },
          'Same as transfer in the body; not signed.',
        ),
        header(
          'User-Agent',
          { type: 'string', const: WEBHOOK_USER_AGENT },
          'The webhook protocol version.',
        ),
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              allOf: [
                ref('WebhookEnvelope'),
                {
                  type: 'object',
                  properties: { action: { const: action }, data },
                },
              ],
            },
          },
        },
      },
      responses: {
        '200': { description: 'Received (any of 200, 201, 202, 204 within 5 s is a success).' },
        '201': { description: 'Received.' },
        '202': { description: 'Received.' },
        '204': { description: 'Received: the recommended answer, after the event is stored.' },
        default: {
          description:
            'Any other status, a timeout (5 s) or a connection error is a failed attempt, retried up to 9 times over about two hours (docs/retries.md).',
        },
      },
    },
  };
}

/** The version of this document; raised when the simulated API changes. */
export const OPENAPI_DOCUMENT_VERSION = '1.0.0';

export function createOpenApiDocument(): Schema {
  const responseBody = json(acknowledgementResponseBodySchema);
  const envelope = z.object({
    eventId: z.string().min(1),
    action: z.string().min(1),
    transfer: z.enum(TRANSFERS),
    occurredAt: z.iso.datetime({ offset: true }),
    test: z.boolean(),
    party: z.string().min(1),
    messageId: z.string().min(1),
    data: z.unknown(),
  });
  const statusChange = z.object({
    formerValue: z.string(),
    newValue: z.string(),
    properties: z.record(z.string(), z.string()).optional(),
  });
  const [responseMlr, responseEmlr] = Object.values(ACKNOWLEDGEMENT_RESPONSE_ACTIONS).map(
    transactionPath,
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Invoicing message service: messaging API and webhooks (as simulated)',
      version: OPENAPI_DOCUMENT_VERSION,
      description:
        'The messaging API and the webhooks of the invoicing message service as this project’s simulator implements them: the service’s specification where it is specific, this project’s decisions where it is silent (docs/decisions.md). Generated from src/protocol; served by the simulator at GET /openapi.json.',
    },
    servers: [{ url: 'http://127.0.0.1:4000', description: 'npm run provider' }],
    security: bearer,
    paths: {
      '/transactions/submit-invoice': {
        post: {
          summary: 'Create a SubmitInvoice business transaction',
          security: bearer,
          parameters: [
            {
              name: 'more',
              in: 'query',
              required: false,
              description:
                'true: further documents are expected and the message stays open (notset).',
              schema: { type: 'string', enum: ['true', 'false'], default: 'false' },
            },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('SubmitInvoice') } },
          },
          responses: {
            '201': jsonAnswer(
              'Accepted for validation; not yet validated.',
              ref('SubmitInvoiceResult'),
            ),
            '400': problem('The body is not a JSON object, or `more` is not true/false.'),
            ...common,
          },
        },
        ...transactionGet(
          'The JSON of a SubmitInvoice message, as submitted',
          ref('SubmitInvoice'),
        ),
      },
      [responseMlr as string]: transactionGet('The JSON of an MLR', ref('AcknowledgementResponse')),
      [responseEmlr as string]: transactionGet(
        'The JSON of an eMLR',
        ref('AcknowledgementResponse'),
      ),
      '/messages': {
        get: {
          summary: 'List messages, oldest first',
          security: bearer,
          parameters: [
            { name: 'status', in: 'query', required: false, schema: { type: 'string' } },
            {
              name: 'transfer',
              in: 'query',
              required: false,
              schema: { type: 'string', enum: [...TRANSFERS] },
            },
            { name: 'cursor', in: 'query', required: false, schema: { type: 'string' } },
            {
              name: 'limit',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
            },
          ],
          responses: {
            '200': jsonAnswer('One page.', ref('MessageList')),
            '400': problem('A query parameter is not valid.'),
            ...common,
          },
        },
      },
      '/messages/{mid}': {
        get: {
          summary: 'The message descriptor (current state of one side of a message)',
          security: bearer,
          parameters: [messageIdPath, transferQuery],
          responses: {
            '200': jsonAnswer('The descriptor; no validationResults.', ref('MessageDescriptor')),
            '404': problem('No such message for the participant.'),
            ...common,
          },
        },
      },
      '/messages/{mid}/status': {
        get: {
          summary: 'The delivery status',
          security: bearer,
          parameters: [messageIdPath, transferQuery],
          responses: {
            '200': jsonAnswer('The delivery status.', ref('MessageStatus')),
            '404': problem('No such message for the participant.'),
            ...common,
          },
        },
      },
      '/messages/{mid}/documents/core': {
        get: {
          summary: 'The core business document in its own format',
          security: bearer,
          parameters: [messageIdPath, transferQuery],
          responses: {
            '200': {
              description:
                'The core document in the format its descriptor entry names (docs/messaging-api.md#document-formats): a UBL 2.1 Invoice by default, a UBL CreditNote or Order, the invoice JSON, a PDF or an EDIFACT interchange when a scenario asked for one; a UBL ApplicationResponse for an MLR/eMLR.',
              content: {
                'application/xml': { schema: { type: 'string' } },
                'application/json': { schema: ref('SubmitInvoice') },
                'application/pdf': {
                  schema: { type: 'string', contentMediaType: 'application/pdf' },
                },
                'application/edifact': { schema: { type: 'string' } },
              },
            },
            '404': problem('No such message for the participant.'),
            '409': problem('The message did not pass validation: it has no core document.'),
            ...common,
          },
        },
      },
      '/messages/{mid}/mark-as-delivered': {
        post: {
          summary: 'Acknowledge an inbound message after it is safely stored',
          security: bearer,
          parameters: [messageIdPath],
          responses: {
            '204': { description: 'Delivered (again 204, without an event, when it already was).' },
            '404': problem('No inbound message of the participant with this id.'),
            '409': problem('The message is failed or parked.'),
            ...common,
          },
        },
      },
      '/messages/{mid}/mark-as-failed': {
        post: {
          summary: 'Report that the participant’s system could not take an inbound message',
          security: bearer,
          parameters: [messageIdPath],
          requestBody: {
            required: false,
            content: { 'application/json': { schema: ref('MarkAsFailed') } },
          },
          responses: {
            '204': { description: 'Failed (again 204 when it already was).' },
            '400': problem('The body is not {"reason": "<text>"}.'),
            '404': problem('No inbound message of the participant with this id.'),
            '409': problem('The message is delivered or parked.'),
            ...common,
          },
        },
      },
    },
    webhooks: Object.fromEntries([
      ...MESSAGE_ACTIONS.map((action) => [
        action,
        webhook(
          action,
          ref('MessageDescriptor'),
          action === 'created'
            ? 'The message was received by the service (data: the descriptor)'
            : 'Inbound: ready to fetch; outbound: validated and queued (data: the descriptor)',
        ),
      ]),
      ...STATUS_ACTIONS.map((action) => [
        action,
        webhook(
          action,
          ref('StatusChange'),
          `A status changed (data: formerValue, newValue, properties)`,
        ),
      ]),
    ]),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'The messaging API token (PROVIDER_API_TOKEN, default sandbox-token).',
        },
      },
      schemas: {
        SubmitInvoice: submitInvoiceBody(),
        SubmitInvoiceResult: json(submitInvoiceResultSchema),
        AcknowledgementResponse: responseBody,
        MessageDescriptor: json(messageDescriptorSchema),
        MessageList: {
          ...json(messageListSchema.extend({ items: z.array(z.unknown()) })),
          properties: {
            items: { type: 'array', items: ref('MessageDescriptor') },
            nextCursor: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }] },
          },
        },
        MessageStatus: json(messageStatusSchema),
        MarkAsFailed: json(markAsFailedBodySchema),
        Problem: json(problemSchema),
        WebhookEnvelope: json(envelope),
        StatusChange: {
          ...json(statusChange),
          description:
            'Properties (all strings) appear only when the change has details; unknown names must be ignored. validationResults is a JSON array serialized into a string, whose entries are ValidationResult.',
        },
        ValidationResult: json(validationResultSchema),
      },
    },
  };
}
