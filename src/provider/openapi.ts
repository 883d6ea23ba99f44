/**
 * The OpenAPI 3.1 document of the messaging API as this simulator implements it, with a
 * `webhooks` section for every event it sends. Generated from the schemas the code already
 * has (openapi/): the protocol's zod schemas of descriptors, answers and findings, the status
 * properties the specification names per action, the elements the validator checks, the
 * header names and actions of the protocol. What this project decided where the specification
 * is silent carries an `x-decision` mark naming its docs/decisions.md section. Served at
 * GET /openapi.json; docs/openapi.json is the same document checked in (a test keeps the two
 * equal; `npm run openapi` rewrites it).
 */
import { messagePaths } from './openapi/message-paths.ts';
import { componentSchemas } from './openapi/schemas.ts';
import { transactionPaths } from './openapi/transaction-paths.ts';
import { WEBHOOK_CREDENTIAL_SCHEMES, webhookOperations } from './openapi/webhooks.ts';

/** The version of this document; raised when the simulated API changes. */
export const OPENAPI_DOCUMENT_VERSION = '2.1.1';

export function createOpenApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Invoicing message service: messaging API and webhooks (as simulated)',
      version: OPENAPI_DOCUMENT_VERSION,
      description:
        'The messaging API and the webhooks of the invoicing message service as this project’s simulator implements them: the service’s specification where it is specific, this project’s decisions where it is silent (marked `x-decision`, explained in docs/decisions.md). Objects the service may extend are open: ignore fields you do not know. Generated from src/protocol; served by the simulator at GET /openapi.json.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:4000', description: 'npm run provider' }],
    security: [{ bearer: [] }],
    // Every status each call answers; shapes the specification does not show carry `x-decision`.
    paths: { ...transactionPaths(), ...messagePaths() },
    webhooks: webhookOperations(),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The messaging API token (PROVIDER_API_TOKEN, default sandbox-token). The service does not show its scheme (docs/decisions.md#api-authentication).',
        },
        ...WEBHOOK_CREDENTIAL_SCHEMES,
      },
      schemas: componentSchemas(),
    },
  };
}
