/**
 * Status notices (src/consumer/store/status-notice.ts) for tests and benchmarks that hand a sink
 * notices without a consumer behind them: an outbound message's delivery, as a status event
 * reported it. Free of vitest: bench/ loads it under plain Node.
 */
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
