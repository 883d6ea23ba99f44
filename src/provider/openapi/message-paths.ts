/**
 * The `paths` of the messages (docs/messaging-api.md#routes): the list, one message's
 * descriptor, status and core document, and the two acknowledgements a receiver sends.
 */
import { TRANSFERS } from '../../protocol/index.ts';
import { MAX_DOCUMENT_NO_FILTER } from '../model/index.ts';
import {
  bearer,
  COMMON_ANSWERS,
  decided,
  jsonAnswer,
  problem,
  ref,
  transferQuery,
  UNSUPPORTED_MEDIA_TYPE,
} from './parts.ts';

const messageIdPath = {
  name: 'mid',
  in: 'path',
  required: true,
  description: 'Message identifier (uniqueId, the event’s messageId).',
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

export function messagePaths(): Record<string, unknown> {
  return {
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
