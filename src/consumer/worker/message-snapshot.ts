/** What the consumer keeps of a message descriptor: one mapping for events, refreshes and reconcile. */
import type { MessageDescriptor, StatusKind } from '../../protocol/index.ts';
import type { MessageKey, MessageRecord, MessageSnapshot } from '../store/messages.ts';
import type { StatusChangeNotice } from '../store/status-notice.ts';

/** The descriptor's value of each status kind. */
export function descriptorStatuses(descriptor: MessageDescriptor): Record<StatusKind, string> {
  return {
    delivery: descriptor.status,
    taxReporting: descriptor.taxReportingStatus,
    lifecycle: descriptor.lifecycleStatus,
  };
}

/**
 * A snapshot as of `at` (ms): `descriptor` for one carried by a message event, `fetch` for one
 * fetched from the service (see StatusSource). Without a descriptor (an event whose data was
 * not one) it only records that the message was heard of.
 */
export function descriptorSnapshot(
  key: MessageKey,
  descriptor: MessageDescriptor | undefined,
  at: number,
  source: MessageSnapshot['source'] = 'descriptor',
): MessageSnapshot {
  if (descriptor === undefined) return { ...key, at, source, statuses: {} };
  return {
    ...key,
    at,
    source,
    documentNo: descriptor.documentNo,
    businessAction: descriptor.action,
    validationStatus: descriptor.validationStatus,
    statuses: descriptorStatuses(descriptor),
  };
}

/**
 * The time up to which a fetched descriptor is known to be current, on the service's clock:
 * when the service answered (`servedAt`, its Date header, floored to whole seconds), and never
 * before what the stored values already reflect, since those changes occurred before the fetch
 * was made. Without a Date header the local clock (`now`) stands in, which assumes the two
 * clocks agree (as the signature tolerance already does).
 */
export function fetchedAsOf(
  servedAt: number | undefined,
  record: Pick<MessageRecord, 'deliveryAt' | 'taxReportingAt' | 'lifecycleAt'> | undefined,
  now: number,
): number {
  const stored = [record?.deliveryAt, record?.taxReportingAt, record?.lifecycleAt];
  return Math.max(servedAt ?? now, ...stored.map((at) => at ?? Number.NEGATIVE_INFINITY));
}

const STORED_VALUE: Record<StatusKind, (r: MessageRecord) => string | null> = {
  delivery: (r) => r.deliveryStatus,
  taxReporting: (r) => r.taxReportingStatus,
  lifecycle: (r) => r.lifecycleStatus,
};

/** The value of `kind` the consumer holds for a side, or null. */
export function storedValue(record: MessageRecord | undefined, kind: StatusKind): string | null {
  return record === undefined ? null : STORED_VALUE[kind](record);
}

/**
 * The snapshot with a notice for the status sink for each status it would change (a value
 * other than the stored one); the store queues a notice only if its write stores the value.
 * `noticeId` names the source: the carrying event's id, or the fetch (docs/status-sink.md#ids).
 */
export function withNotices(
  snapshot: MessageSnapshot,
  record: MessageRecord | undefined,
  noticeId: string,
): MessageSnapshot {
  const notices: Partial<Record<StatusKind, StatusChangeNotice>> = {};
  for (const [kind, value] of Object.entries(snapshot.statuses) as [StatusKind, string][]) {
    const formerValue = storedValue(record, kind);
    if (value === formerValue) continue;
    notices[kind] = {
      id: `${noticeId}:${kind}`,
      messageId: snapshot.messageId,
      transfer: snapshot.transfer,
      kind,
      formerValue,
      newValue: value,
      occurredAt: new Date(snapshot.at).toISOString(),
      source: snapshot.source === 'fetch' ? 'refresh' : 'event',
      properties: null,
      validationResults: null,
    };
  }
  return Object.keys(notices).length === 0 ? snapshot : { ...snapshot, notices };
}

/** The notice id of a fetch: the side and the time up to which the fetch is current. */
export function fetchNoticeId(key: MessageKey, asOf: number): string {
  return `fetch:${key.messageId}:${key.transfer}:${asOf}`;
}
