/** What the consumer keeps of a message descriptor: one mapping for events, refreshes and reconcile. */
import type { MessageDescriptor, StatusKind } from '../../protocol/index.ts';
import type { MessageKey, MessageRecord, MessageSnapshot } from '../store/store.ts';

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
