/**
 * The calls on one message by its id: its descriptor, its status, and marking it as delivered
 * or as failed (docs/messaging-api.md#routes).
 */
import {
  type MessageDescriptor,
  messageDescriptorSchema,
  type Transfer,
} from '../../protocol/index.ts';
import { parseJsonAnswer, requestJson } from './json-answer.ts';
import { type ApiRequest, segment } from './request.ts';
import { messageStatus } from './response-schemas.ts';
import type { Transport } from './transport.ts';

export interface FetchedMessage {
  descriptor: MessageDescriptor;
  /**
   * When the service made the answer (its Date header, whole seconds, ms since the epoch), on
   * the same clock as occurredAt: every change that occurred up to then is in `descriptor`.
   * Undefined when the answer had no valid Date header.
   */
  servedAt: number | undefined;
}

export interface MessageCalls {
  /** GET /messages/:mid. `transfer` picks the side of a message a participant sent itself. */
  getMessage(messageId: string, options?: { transfer?: Transfer }): Promise<FetchedMessage>;
  /** GET /messages/:mid/status. */
  getMessageStatus(messageId: string): Promise<{ status: string }>;
  /** POST /messages/:mid/mark-as-delivered. Idempotent at the service, so retried. */
  markAsDelivered(messageId: string): Promise<void>;
  /** POST /messages/:mid/mark-as-failed with `{"reason"}`. Idempotent, so retried. */
  markAsFailed(messageId: string, reason: string): Promise<void>;
}

export function createMessageCalls(transport: Transport): MessageCalls {
  return {
    getMessage: async (messageId, getOptions = {}) => {
      const request: ApiRequest = {
        method: 'GET',
        operation: 'message descriptor',
        path: `/messages/${segment(messageId)}`,
        query: { transfer: getOptions.transfer },
        retry: 'idempotent',
      };
      const response = await transport.send(request);
      const descriptor = parseJsonAnswer(
        response,
        request,
        messageDescriptorSchema,
        'a message descriptor',
      );
      const servedAt = response.date === undefined ? Number.NaN : Date.parse(response.date);
      return { descriptor, servedAt: Number.isFinite(servedAt) ? servedAt : undefined };
    },

    getMessageStatus: async (messageId) => {
      const { status } = await requestJson(
        transport,
        {
          method: 'GET',
          operation: 'message status',
          path: `/messages/${segment(messageId)}/status`,
          retry: 'idempotent',
        },
        messageStatus,
        'a message status',
      );
      return { status };
    },

    markAsDelivered: async (messageId) => {
      await transport.send({
        method: 'POST',
        operation: 'mark-as-delivered',
        path: `/messages/${segment(messageId, 'POST')}/mark-as-delivered`,
        retry: 'idempotent',
      });
    },

    markAsFailed: async (messageId, reason) => {
      await transport.send({
        method: 'POST',
        operation: 'mark-as-failed',
        path: `/messages/${segment(messageId, 'POST')}/mark-as-failed`,
        json: { reason },
        retry: 'idempotent',
      });
    },
  };
}
