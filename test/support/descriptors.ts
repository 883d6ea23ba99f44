/**
 * Message descriptors (SPEC section 2.2) for tests and benchmarks that answer as the messaging
 * API would without the simulator: an approved inbound invoice waiting for delivery, each
 * caller changing what it looks at. Free of vitest: bench/ loads it under plain Node.
 */
import type { MessageDescriptor } from '../../src/protocol/index.ts';

export const SANDBOX_PARTY = { identifier: '0192:999999999', name: 'Sandbox', countryCode: 'NO' };

/** An approved inbound SubmitInvoice message, pending delivery, with no documents listed. */
export function descriptorOf({
  uniqueId,
  ...fields
}: Partial<MessageDescriptor> & Pick<MessageDescriptor, 'uniqueId'>): MessageDescriptor {
  return {
    uniqueId,
    timeReceived: '2026-01-05T09:00:00Z',
    documentNo: 'INV-1',
    status: 'pendingdelivery',
    transfer: 'inbound',
    validationStatus: 'approved',
    taxReportingStatus: 'none',
    lifecycleStatus: 'none',
    importStatus: 'NotSet',
    action: 'SubmitInvoice',
    originParty: SANDBOX_PARTY,
    destinationParty: SANDBOX_PARTY,
    documents: [],
    ...fields,
  };
}
