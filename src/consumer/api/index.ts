export type { Problem } from './api-error.ts';
export { ApiDeadlineError, ApiError } from './api-error.ts';
export type {
  ApiClient,
  FetchedDocument,
  FetchedMessage,
  ListMessagesQuery,
  MessagePage,
} from './client.ts';
export { createApiClient } from './client.ts';
export type { ApiClientOptions } from './options.ts';
export { backoffDelay, parseRetryAfter } from './retry.ts';
export { SpoolWriteError } from './transport.ts';
