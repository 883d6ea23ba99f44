/**
 * The `webhooks` section: one operation per action the service sends, with the headers of
 * docs/events.md#webhook-request, the optional credential as security schemes, and the body
 * as the envelope with that action's `data`.
 */
import {
  MESSAGE_ACTIONS,
  STATUS_ACTIONS,
  type StatusAction,
  TRANSFERS,
  WEBHOOK_USER_AGENT,
} from '../../protocol/index.ts';
import { decided, ref, type Schema } from './parts.ts';
import { statusChangeSchemaName } from './schemas.ts';

/** `t=<unix seconds>` then one or more `<scheme>=<hex>` entries, at least one of them `v0`. */
const SIGNATURE_PATTERN = '^t=\\d+(,[a-z0-9]+=[0-9a-f]+)*,v0=[0-9a-f]{64}(,[a-z0-9]+=[0-9a-f]+)*$';

const header = (name: string, schema: Schema, description: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema,
});

/**
 * The credential an endpoint may be given besides its signature (docs/webhook-endpoints.md):
 * the service sends one of these, or none. A custom header's name is the endpoint's choice,
 * so the scheme's `name` is only an example.
 */
export const WEBHOOK_CREDENTIAL_SCHEMES = {
  webhookBearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'An endpoint credential of type bearer token: `Authorization: Bearer <token>`.',
  },
  webhookBasic: {
    type: 'http',
    scheme: 'basic',
    description:
      'An endpoint credential of type basic authentication: `Authorization: Basic <base64(username:password)>`.',
  },
  webhookCustomHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Webhook-Credential',
    description:
      'An endpoint credential of type custom header: `<Header-Name>: <value>`, both set on the endpoint; the name here is an example.',
  },
};

const CREDENTIAL_OPTIONS = [
  {},
  { webhookBearer: [] },
  { webhookBasic: [] },
  { webhookCustomHeader: [] },
];

function operationIdOf(action: string): string {
  return `on${action.charAt(0).toUpperCase()}${action.slice(1)}`;
}

function webhook(action: string, data: Schema, summary: string) {
  return {
    post: {
      operationId: operationIdOf(action),
      summary,
      description:
        'Verify the signature over the raw body, store the event (dedupe on eventId), answer 204, process afterwards. The credential, when the endpoint has one, comes on top of the signature, never instead of it.',
      security: CREDENTIAL_OPTIONS,
      parameters: [
        {
          ...header(
            'SVC-Webhook-Signature',
            { type: 'string', pattern: SIGNATURE_PATTERN },
            '`t=<unix seconds>,v0=<hex>`, one v0 per valid secret (two for 24 hours after a rotation): HMAC-SHA256 with the endpoint secret over `<t>.<raw body>`. Entries of other schemes are to be ignored (docs/signature.md).',
          ),
          ...decided('two-signatures'),
        },
        header(
          'SVC-Webhook-Event-Id',
          { type: 'string', minLength: 1 },
          'Same as eventId in the body; not signed, so a consumer acts on the body.',
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
                  required: ['action', 'data'],
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

export function webhookOperations(): Record<string, unknown> {
  return Object.fromEntries([
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
    ...STATUS_ACTIONS.map((action: StatusAction) => [
      action,
      webhook(
        action,
        ref(statusChangeSchemaName(action)),
        'A status changed (data: formerValue, newValue, properties)',
      ),
    ]),
  ]);
}
