/**
 * The `paths` of the business transactions (docs/messaging-api.md#routes): submitting an
 * invoice, and the JSON of a message by its action (docs/decisions.md#transaction-routes).
 */
import { ACKNOWLEDGEMENT_RESPONSE_ACTIONS, transactionPath } from '../../protocol/index.ts';
import {
  bearer,
  COMMON_ANSWERS,
  decided,
  jsonAnswer,
  problem,
  ref,
  type Schema,
  transferQuery,
  UNSUPPORTED_MEDIA_TYPE,
} from './parts.ts';

const messageIdQuery = {
  name: 'messageId',
  in: 'query',
  required: true,
  description: 'The message whose JSON to answer.',
  schema: { type: 'string', minLength: 1 },
};

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

export function transactionPaths(): Record<string, unknown> {
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
  };
}
