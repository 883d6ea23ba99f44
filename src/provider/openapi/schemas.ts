/**
 * The document's components: answer and event shapes from src/protocol's zod schemas (the ones
 * the consumer parses with, carrying the known values and forms as metadata), the status
 * change of each status action with the properties the specification names for it, and the
 * SubmitInvoice body from the validator's elements. Objects the service may extend stay open
 * (docs/events.md#versioning): a validator that refused an unknown field would refuse a
 * future event.
 */
import { z } from 'zod';
import {
  acknowledgementResponseBodySchema,
  CALENDAR_DATE,
  DECIMAL_STRING,
  DELIVERY_STATUSES,
  LIFECYCLE_STATUSES,
  markAsFailedBodySchema,
  messageDescriptorSchema,
  messageStatusSchema,
  PARTY_IDENTIFIER,
  problemSchema,
  STATUS_ACTIONS,
  STATUS_PROPERTIES_BY_ACTION,
  type StatusAction,
  type StatusPropertyName,
  submitInvoiceResultSchema,
  TAX_REPORTING_STATUSES,
  TRANSFERS,
  UTC_MILLISECONDS,
  validationResultSchema,
} from '../../protocol/index.ts';
import { decided, json, ref, type Schema } from './parts.ts';
import { submitInvoiceSchema } from './submit-invoice.ts';

/** Each status property as the specification describes it (docs/events.md#status-properties). */
const STATUS_PROPERTY_SCHEMAS: Record<StatusPropertyName, Schema> = {
  errorCode: {
    type: 'string',
    description:
      'Error code from a tax authority or the network, or the rule identifier of the first validation error.',
    examples: ['BR-02'],
  },
  errorMessage: {
    type: 'string',
    description:
      'Text matching errorCode, or the reason for a failure without a code; on `retrying`, the first failure.',
  },
  validationResults: {
    type: 'string',
    description:
      'Validation findings, errors first: a JSON array serialized into a string. Left out when there are none.',
    contentMediaType: 'application/json',
    contentSchema: { type: 'array', items: ref('ValidationResult') },
  },
  actionMessageId: {
    type: 'string',
    description:
      'Message identifier (UUID-shaped) of the action message that caused the change; only in the event of the participant that took the action.',
  },
  actionName: {
    type: 'string',
    description: 'The action; the values seen are the examples.',
    examples: [
      'RegisterFiscalEvidence',
      'RegisterTaxableDelivery',
      'RegisterPayment',
      'RegisterRejection',
    ],
  },
  jurisdiction: {
    type: 'string',
    description: 'Country whose rules apply.',
    examples: ['Croatia', 'Slovakia'],
  },
  role: {
    type: 'string',
    description: 'Side that took the action.',
    examples: ['Supplier', 'Customer'],
  },
  reason: {
    type: 'string',
    description: 'Reason given by a person (a rejection), or the note of a parked message.',
  },
  rejectionType: {
    type: 'string',
    description: 'Type of a rejection.',
    examples: ['MismatchNotAffectingTaxes', 'MismatchAffectingTaxes', 'Other'],
  },
  paidAmount: {
    type: 'string',
    description: 'Registered payment amount, a decimal number as a string.',
    pattern: DECIMAL_STRING.source,
    examples: ['1250.00'],
  },
  paymentDate: {
    type: 'string',
    description: 'Registered payment date.',
    pattern: CALENDAR_DATE.source,
    examples: ['2026-01-31'],
  },
};

/** The status values of each status action's formerValue and newValue. */
const STATUS_VALUES: Record<StatusAction, Schema> = {
  messageStatusChanged: {
    type: 'string',
    description:
      'A delivery status. The known values are the examples; an inbound processing step has statuses of its own, not shown, so the set is open.',
    examples: [...DELIVERY_STATUSES],
  },
  taxReportingStatusChanged: { type: 'string', enum: [...TAX_REPORTING_STATUSES] },
  lifecycleStatusChanged: { type: 'string', enum: [...LIFECYCLE_STATUSES] },
};

/** `messageStatusChanged` -> `MessageStatusChange`: the component of that action's `data`. */
export function statusChangeSchemaName(action: StatusAction): string {
  return `${action.charAt(0).toUpperCase()}${action.slice(1).replace(/d$/, '')}`;
}

/** `data` of one status action: the two values and the properties named for it. */
function statusChange(action: StatusAction): Schema {
  const names = STATUS_PROPERTIES_BY_ACTION[action];
  return {
    type: 'object',
    description: `\`data\` of ${action}. A consumer may apply newValue directly, ordered per message and status kind by occurredAt; a formerValue that differs from the stored value means events were missed or came out of order.`,
    properties: {
      formerValue: { ...STATUS_VALUES[action], description: 'The status before the change.' },
      newValue: { ...STATUS_VALUES[action], description: 'The status after the change.' },
      properties: {
        type: 'object',
        description:
          'Present only when the change has details. No name is guaranteed; the names listed are those the specification names for this action, and others may come at any time and are to be ignored. When an action caused the change, actionMessageId and actionName come first.',
        properties: Object.fromEntries(names.map((name) => [name, STATUS_PROPERTY_SCHEMAS[name]])),
        additionalProperties: { type: 'string' },
      },
    },
    required: ['formerValue', 'newValue'],
  };
}

const envelopeSchema = z.looseObject({
  eventId: z.string().min(1).meta({
    description:
      'Unique event identifier, identical on every retry and redelivery: the dedupe key.',
  }),
  action: z.string().min(1).meta({
    description:
      'What happened. New actions may be added at any time; a consumer answers 2xx to them and ignores them.',
  }),
  transfer: z.enum(TRANSFERS).meta({ description: 'The side of the message the event is about.' }),
  occurredAt: z.string().meta({
    description:
      'When the event happened, not when it was sent: ISO 8601 UTC with milliseconds; unchanged on retry and redelivery.',
    pattern: UTC_MILLISECONDS.source,
    examples: ['2026-01-05T09:00:00.123Z'],
  }),
  test: z.boolean().meta({ description: '`true` for test events, which import logic ignores.' }),
  party: z.string().meta({
    description: 'The participant the webhook belongs to, `<scheme>:<number>`.',
    pattern: PARTY_IDENTIFIER.source,
    examples: ['0192:999999999'],
  }),
  messageId: z.string().min(1).meta({
    description:
      'The message to use in API calls. For a status event, the business message whose status changed, also when an action message or a response message caused it.',
  }),
  data: z.unknown(),
});

export function componentSchemas(): Record<string, Schema> {
  const envelope = json(envelopeSchema);
  const statusChanges = Object.fromEntries(
    STATUS_ACTIONS.map((action) => [statusChangeSchemaName(action), statusChange(action)]),
  );
  return {
    SubmitInvoice: submitInvoiceSchema(),
    SubmittedInvoice: {
      description:
        'The JSON of a SubmitInvoice message, the body exactly as the sender posted it. It has the SubmitInvoice form when validation found no errors; a document the network let through with its errors (docs/events.md#documents-with-errors) keeps them, so it can be any JSON object.',
      anyOf: [ref('SubmitInvoice'), { type: 'object', title: 'Let through with errors' }],
    },
    SubmitInvoiceResult: {
      ...json(submitInvoiceResultSchema),
      description: '`received`, or `notset` while more documents are expected (`more=true`).',
      ...decided('submit-invoice-response'),
    },
    AcknowledgementResponse: {
      ...json(acknowledgementResponseBodySchema),
      ...decided('acknowledgement-responses'),
    },
    MessageDescriptor: {
      ...json(messageDescriptorSchema),
      description:
        'The state of one side of a message (GET /messages/{mid}, `data` of message events). Fields beyond these are not shown; the service may add some, so the object is open. Validation findings are never part of it.',
    },
    MessageList: {
      type: 'object',
      properties: {
        items: { type: 'array', items: ref('MessageDescriptor') },
        nextCursor: {
          anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }],
          description: 'Pass as `cursor` for the next page; null on the last page.',
        },
      },
      required: ['items', 'nextCursor'],
      ...decided('message-list'),
    },
    MessageStatus: { ...json(messageStatusSchema), ...decided('message-status') },
    MarkAsFailed: {
      ...json(markAsFailedBodySchema),
      description: 'The reason is shown to the sender; say what they must fix. No other field.',
      ...decided('mark-as-failed-body'),
    },
    Problem: { ...json(problemSchema), ...decided('error-format') },
    WebhookEnvelope: {
      ...envelope,
      description:
        'The body of every webhook request, signed over its raw bytes. The service may add fields; a consumer ignores those it does not know.',
    },
    ...statusChanges,
    ValidationResult: json(validationResultSchema),
  };
}
