/**
 * Status notices (src/consumer/store/status-notice.ts) for tests and benchmarks that hand a sink
 * notices without a consumer behind them: an outbound message's delivery, as a status event
 * reported it. Free of vitest: bench/ loads it under plain Node.
 */
import type { MessageStore } from '../../src/consumer/store/messages.ts';
import type { StatusChangeNotice } from '../../src/consumer/store/status-notice.ts';

/** `messageId`'s delivery status set to delivered; its id `<messageId>:1` unless given. */
export function deliveredNotice(messageId: string, id = `${messageId}:1`): StatusChangeNotice {
  return {
    id,
    messageId,
    transfer: 'outbound',
    kind: 'delivery',
    formerValue: null,
    newValue: 'delivered',
    occurredAt: '2026-11-26T09:00:00.000Z',
    source: 'event',
    properties: null,
    validationResults: null,
  };
}

/** The `n`th change (from 1) of `messageId`'s delivery status: `step-<n-1>` to `step-<n>`. */
export function deliveryChange(messageId: string, n: number): StatusChangeNotice {
  return {
    ...deliveredNotice(messageId, `${messageId}:${n}`),
    formerValue: n === 1 ? null : `step-${n - 1}`,
    newValue: `step-${n}`,
    occurredAt: new Date(1_800_000_000_000 + n * 1000).toISOString(),
  };
}

/**
 * Stores the change's status as a status change does, which queues its notice in the sink
 * outbox; true when it was stored (a later status already there keeps it out).
 */
export function queueNotice(
  messages: MessageStore,
  notice: StatusChangeNotice,
  now = Date.now(),
): Promise<boolean> {
  return messages.applyStatus(
    { messageId: notice.messageId, transfer: notice.transfer },
    {
      kind: notice.kind,
      value: notice.newValue,
      at: Date.parse(notice.occurredAt),
      source: 'change',
      notice,
    },
    now,
  );
}
