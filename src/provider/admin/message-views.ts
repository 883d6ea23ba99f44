/** How the admin API shows a message: whole (one message) or summarised (the list). */
import type { ProviderMessage, SideState } from '../model/index.ts';

/** Everything the simulator knows about a message, for tests and the console. */
export function messageState(message: ProviderMessage) {
  const { deliveryTimer: _timer, ...state } = message;
  return state;
}

export interface MessageSummary {
  id: string;
  action: string;
  documentNo: string;
  timeReceived: string;
  origin: ProviderMessage['origin'];
  destination: ProviderMessage['destination'];
  validationStatus: ProviderMessage['validationStatus'];
  /** The three statuses of each side that exists (outbound: the sender's, inbound: the receiver's). */
  sides: Partial<Record<'inbound' | 'outbound', Omit<SideState, 'listSequence'>>>;
  /** Errors and warnings found by validation. */
  validationResultCount: number;
}

export function messageSummary(message: ProviderMessage): MessageSummary {
  const sides: MessageSummary['sides'] = {};
  for (const transfer of ['outbound', 'inbound'] as const) {
    const side = message.sides[transfer];
    if (side === undefined) continue;
    sides[transfer] = {
      status: side.status,
      taxReportingStatus: side.taxReportingStatus,
      lifecycleStatus: side.lifecycleStatus,
    };
  }
  return {
    id: message.id,
    action: message.action,
    documentNo: message.documentNo,
    timeReceived: message.timeReceived,
    origin: message.origin,
    destination: message.destination,
    validationStatus: message.validationStatus,
    sides,
    validationResultCount: message.validationResults.length,
  };
}
