/**
 * The `paths` section: the messaging API's calls (docs/messaging-api.md#routes) with every
 * status the simulator answers. Shapes and statuses the specification does not show carry the
 * `x-decision` mark (parts.ts).
 */
import {
  ACKNOWLEDGEMENT_RESPONSE_ACTIONS,
  TRANSFERS,
  transactionPath,
} from '../../protocol/index.ts';
import { MAX_DOCUMENT_NO_FILTER } from '../model/index.ts';
import {
  COMMON_ANSWERS,
  decided,
  jsonAnswer,
  problem,
  ref,
  type Schema,
  UNSUPPORTED_MEDIA_TYPE,
} from './parts.ts';

const bearer = [{ bearer: [] }];

const messageIdPath = {
  name: 'mid',
  in: 'path',
  required: true,
  description: 'Message identifier (uniqueId, the event’s messageId).',
  schema: { type: 'string', minLength: 1 },
};
const transferQuery = {
  name: 'transfer',
  in: 'query',
  required: false,
  description:
    'An extension of this simulator: picks the side of a message a participant sent itself; inbound by default. A service may ignore it; a consumer applies an answer to the side its `transfer` names.',
  schema: { type: 'string', enum: [...TRANSFERS] },
  ...decided('transfer-query'),
};
const messageIdQuery = {
  name: 'messageId',
  in: 'query',
  required: true,
  description: 'The message whose JSON to answer.',
  schema: { type: 'string', minLength: 1 },
};

/**
 * The Date header of an answer about a message: the consumer takes it as the moment the answer
 * was current, which orders it against events (docs/events.md#ordering).
 */
const dateHeader = {
  Date: {
    description:
      'When the service made the answer (HTTP date, whole seconds). A consumer orders the descriptor against events by it.',
    schema: { type: 'string' },
  },
};

const notFound = problem('No such message for the participant.');
const badQuery = problem(
  'A query parameter is not valid (`transfer` not inbound or outbound, a parameter given twice) or the path has an invalid percent-escape.',
);

function transactionGet(operationId: string, summary: string, schema: Schema) {
  return {
    get: {
      operationId,
      summary,
      security: bearer,
      parameters: [messageIdQuery, transferQuery],
      responses: {
        '200': jsonAnswer('The JSON of the business transaction.', schema),
        '400': problem(
          '`messageId` missing or given twice, or `transfer` not inbound or outbound.',
        ),
        '404': problem('No such message of this business transaction for the participant.'),
        '409': {
          ...problem(
            'The message has not passed validation (it failed, or has not been validated yet): it has no business document.',
          ),
          ...decided('transaction-json-validation'),
        },
        ...COMMON_ANSWERS,
      },
      ...decided('transaction-routes'),
    },
  };
}

export function apiPaths(): Record<string, unknown> {
  const [responseMlr, responseEmlr] = Object.values(ACKNOWLEDGEMENT_RESPONSE_ACTIONS).map(
    transactionPath,
  );
  return {
    '/transactions/submit-invoice': {
      post: {
        operationId: 'submitInvoice',
        summary: 'Create a SubmitInvoice business transaction',
        description:
          'Accepts the invoice for validation. The answer says nothing about validity: validation runs afterwards, and the outbound deliveryNotified event, not this answer, says it passed. A body that breaks SubmitInvoice is accepted too, and fails validation (messageStatusChanged to `failed` with validationResults).',
        security: bearer,
        parameters: [
          {
            name: 'more',
            in: 'query',
            required: false,
            description:
              '`true`: further documents are expected and the message stays open (`notset`).',
            schema: { type: 'string', enum: ['true', 'false'], default: 'false' },
            ...decided('more-parameter'),
          },
        ],
        requestBody: {
          required: true,
          description:
            'A valid invoice has the SubmitInvoice form. The service validates after accepting, so any JSON object is answered 201 (see x-accepts-invalid-body).',
          content: { 'application/json': { schema: ref('SubmitInvoice') } },
          'x-accepts-invalid-body':
            'A JSON object that breaks the schema is accepted (201) and fails validation afterwards: messageStatusChanged to failed with errorCode, errorMessage and validationResults (docs/decisions.md#submit-invoice-validation).',
        },
        responses: {
          '201': jsonAnswer(
            'Accepted for validation; not yet validated.',
            ref('SubmitInvoiceResult'),
          ),
          '400': problem(
            'The body is not JSON, or not a JSON object, or `more` is not true or false.',
          ),
          '413': problem('The body is over 25 MB.'),
          '415': UNSUPPORTED_MEDIA_TYPE,
          ...COMMON_ANSWERS,
        },
      },
      ...transactionGet(
        'getSubmitInvoice',
        'The JSON of a SubmitInvoice message, as submitted',
        ref('SubmittedInvoice'),
      ),
    },
    [responseMlr as string]: transactionGet(
      'getMessageLevelResponse',
      'The JSON of an MLR',
      ref('AcknowledgementResponse'),
    ),
    [responseEmlr as string]: transactionGet(
      'getEMessageLevelResponse',
      'The JSON of an eMLR',
      ref('AcknowledgementResponse'),
    ),
    '/messages': {
      get: {
        operationId: 'listMessages',
        summary: 'List messages, oldest first',
        description:
          'The daily check for messages never acknowledged is `status=pendingdelivery&transfer=inbound`.',
        security: bearer,
        parameters: [
          {
            name: 'status',
            in: 'query',
            required: false,
            description: 'Only messages in this delivery status.',
            schema: { type: 'string', examples: ['pendingdelivery'] },
          },
          {
            name: 'transfer',
            in: 'query',
            required: false,
            description: 'Only this side of the messages.',
            schema: { type: 'string', enum: [...TRANSFERS] },
          },
          {
            name: 'documentNo',
            in: 'query',
            required: false,
            description:
              'Only messages whose descriptor has exactly this documentNo (the invoice number); no control characters. A decision of this simulator: the service may ignore the parameter and answer every message, so a client compares each item’s documentNo itself.',
            schema: {
              type: 'string',
              minLength: 1,
              maxLength: MAX_DOCUMENT_NO_FILTER,
              pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F]+$',
              examples: ['INV-1001'],
            },
            ...decided('message-list'),
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description: 'The nextCursor of the page before.',
            schema: { type: 'string' },
            ...decided('message-list'),
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: 'Page size.',
            schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
            ...decided('message-list'),
          },
        ],
        responses: {
          '200': jsonAnswer('One page.', ref('MessageList')),
          '400': problem('A query parameter is not valid, or given twice.'),
          ...COMMON_ANSWERS,
        },
      },
    },
    '/messages/{mid}': {
      get: {
        operationId: 'getMessage',
        summary: 'The message descriptor (current state of one side of a message)',
        security: bearer,
        parameters: [messageIdPath, transferQuery],
        responses: {
          '200': jsonAnswer(
            'The descriptor; no validationResults.',
            ref('MessageDescriptor'),
            dateHeader,
          ),
          '400': badQuery,
          '404': notFound,
          ...COMMON_ANSWERS,
        },
      },
    },
    '/messages/{mid}/status': {
      get: {
        operationId: 'getMessageStatus',
        summary: 'The delivery status (polling; webhooks replace it)',
        security: bearer,
        parameters: [messageIdPath, transferQuery],
        responses: {
          '200': jsonAnswer('The delivery status.', ref('MessageStatus'), dateHeader),
          '400': badQuery,
          '404': notFound,
          ...COMMON_ANSWERS,
        },
      },
    },
    '/messages/{mid}/documents/core': {
      get: {
        operationId: 'getCoreDocument',
        summary: 'The core business document in its own format',
        security: bearer,
        parameters: [messageIdPath, transferQuery],
        responses: {
          '200': {
            description:
              'The core document in the format its descriptor entry names (docs/messaging-api.md#document-formats): a UBL 2.1 Invoice by default, a UBL CreditNote or Order, the invoice JSON, a PDF or an EDIFACT interchange when a scenario asked for one; a UBL ApplicationResponse for an MLR/eMLR.',
            content: {
              'application/xml': { schema: { type: 'string' } },
              'application/json': { schema: ref('SubmittedInvoice') },
              'application/pdf': {
                schema: { type: 'string', contentMediaType: 'application/pdf' },
              },
              'application/edifact': { schema: { type: 'string' } },
            },
          },
          '400': badQuery,
          '404': notFound,
          '409': problem('The message did not pass validation: it has no core document.'),
          ...COMMON_ANSWERS,
        },
      },
    },
    '/messages/{mid}/mark-as-delivered': {
      post: {
        operationId: 'markAsDelivered',
        summary: 'Acknowledge an inbound message after it is safely stored',
        description: 'Takes no body. Idempotent: safe to call again after a lost answer.',
        security: bearer,
        parameters: [messageIdPath],
        responses: {
          '204': { description: 'Delivered (again 204, without an event, when it already was).' },
          '400': problem('The path has an invalid percent-escape.'),
          '404': problem('No inbound message of the participant with this id.'),
          '409': problem('The message is failed or parked.'),
          '415': UNSUPPORTED_MEDIA_TYPE,
          ...COMMON_ANSWERS,
        },
      },
    },
    '/messages/{mid}/mark-as-failed': {
      post: {
        operationId: 'markAsFailed',
        summary: 'Report that the participant’s system could not take an inbound message',
        description:
          'The message becomes `failed` (docs/decisions.md#mark-as-failed-target). Idempotent.',
        security: bearer,
        parameters: [messageIdPath],
        requestBody: {
          required: false,
          content: { 'application/json': { schema: ref('MarkAsFailed') } },
        },
        responses: {
          '204': { description: 'Failed (again 204 when it already was).' },
          '400': problem(
            'The body is not JSON, or not `{"reason": "<text>"}` (an unknown field is named), or the path has an invalid percent-escape.',
          ),
          '404': problem('No inbound message of the participant with this id.'),
          '409': problem('The message is delivered or parked.'),
          '413': problem('The body is over 1 MB.'),
          '415': UNSUPPORTED_MEDIA_TYPE,
          ...COMMON_ANSWERS,
        },
        ...decided('mark-as-failed-target'),
      },
    },
  };
}
