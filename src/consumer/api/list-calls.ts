/** GET /messages: one page of the message list, or every page by following nextCursor. */
import type { MessageDescriptor, Transfer } from '../../protocol/index.ts';
import { requestJson, shapeError } from './json-answer.ts';
import { MAX_LIST_BYTES } from './request.ts';
import { messageList } from './response-schemas.ts';
import type { Transport } from './transport.ts';

export interface ListMessagesQuery {
  /** Delivery status, for example `pendingdelivery`. */
  status?: string;
  transfer?: Transfer;
  /**
   * Only messages with exactly this documentNo (an invoice number): the simulator's filter,
   * which the service does not describe and may ignore (docs/decisions.md#message-list). A
   * caller compares each item's documentNo itself.
   */
  documentNo?: string;
  /** `nextCursor` of the previous page; leave out for the first page. */
  cursor?: string;
  /** Page size; the service defaults to 100 and allows up to 1000. */
  limit?: number;
}

export interface MessagePage {
  items: MessageDescriptor[];
  /** `null` on the last page. */
  nextCursor: string | null;
}

export interface ListCalls {
  /** GET /messages: one page. */
  listMessages(query: ListMessagesQuery): Promise<MessagePage>;
  /** Every message matching the query, following nextCursor page by page. */
  listAllMessages(query: Omit<ListMessagesQuery, 'cursor'>): AsyncIterable<MessageDescriptor>;
}

export function createListCalls(transport: Transport): ListCalls {
  async function listMessages(query: ListMessagesQuery): Promise<MessagePage> {
    return requestJson(
      transport,
      {
        method: 'GET',
        operation: 'message list',
        path: '/messages',
        query: { ...query },
        retry: 'idempotent',
        sink: { to: 'memory', maxBytes: MAX_LIST_BYTES },
      },
      messageList,
      'a message list',
    );
  }

  return {
    listMessages,

    async *listAllMessages(query) {
      let cursor: string | undefined;
      const seen = new Set<string>();
      do {
        const page = await listMessages(cursor === undefined ? query : { ...query, cursor });
        yield* page.items;
        cursor = page.nextCursor ?? undefined;
        // A service that hands back a cursor twice would make this loop forever.
        if (cursor !== undefined) {
          if (seen.has(cursor)) {
            throw shapeError(
              {
                method: 'GET',
                operation: 'message list',
                path: '/messages',
                query: { ...query, cursor },
                retry: 'idempotent',
              },
              200,
              `the message list repeated the cursor ${JSON.stringify(cursor)}`,
              '',
            );
          }
          seen.add(cursor);
        }
      } while (cursor !== undefined);
    },
  };
}
