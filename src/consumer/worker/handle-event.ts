/**
 * What the worker does with one inbox event, by action (SPEC.md section 6):
 *   created                 record the message (its descriptor) and nothing else
 *   deliveryNotified in     import the documents and acknowledge (inbound-delivery.ts)
 *   deliveryNotified out    record that validation passed
 *   *StatusChanged          apply the status change in order (status-events.ts)
 *   test events, unknown    skipped: stored and answered, never acted upon
 */
import type { Logger } from 'pino';
import {
  isStatusAction,
  type MessageDescriptor,
  parseMessageDescriptor,
} from '../../protocol/index.ts';
import type { ApiClient } from '../api/index.ts';
import type { Importer } from '../importer/index.ts';
import type { MessageSnapshot, MessageStore, StoredEvent } from '../store/store.ts';
import { MalformedEventError } from './errors.ts';
import { createInboundDelivery } from './inbound-delivery.ts';
import { createStatusEventHandler } from './status-events.ts';

export type HandleOutcome = 'done' | 'skipped';
export type EventHandler = (event: StoredEvent) => Promise<HandleOutcome>;

export function createEventHandler(deps: {
  api: ApiClient;
  importer: Importer;
  messages: MessageStore;
  logger: Logger;
  now: () => number;
}): EventHandler {
  const { messages, now } = deps;
  const inbound = createInboundDelivery(deps);
  const applyStatusEvent = createStatusEventHandler(deps);

  const recordDescriptor = (event: StoredEvent, descriptor: MessageDescriptor | undefined) => {
    const snapshot: MessageSnapshot = {
      messageId: event.messageId,
      transfer: event.transfer,
      at: Date.parse(event.occurredAt),
      statuses: {},
    };
    if (descriptor !== undefined) {
      snapshot.documentNo = descriptor.documentNo;
      snapshot.businessAction = descriptor.action;
      snapshot.validationStatus = descriptor.validationStatus;
      snapshot.statuses = {
        delivery: descriptor.status,
        taxReporting: descriptor.taxReportingStatus,
        lifecycle: descriptor.lifecycleStatus,
      };
    }
    return messages.recordSnapshot(snapshot, now());
  };

  return async (event) => {
    if (event.flag !== null) return 'skipped';
    let data: unknown;
    try {
      data = (JSON.parse(event.body.toString('utf8')) as { data?: unknown }).data;
    } catch {
      // Ingress stores only parsed bodies; a row that does not parse was changed by hand.
      throw new MalformedEventError('stored body is not JSON');
    }

    if (isStatusAction(event.action)) {
      await applyStatusEvent({ ...event, action: event.action, data });
      return 'done';
    }
    const descriptor = parseMessageDescriptor(data);
    if (event.action === 'created') {
      await recordDescriptor(event, descriptor);
      return 'done';
    }
    if (event.action === 'deliveryNotified') {
      await recordDescriptor(event, descriptor);
      // Outbound, this event is the service's word that validation passed (SPEC.md 6.1 rule 2).
      if (event.transfer === 'outbound' && descriptor === undefined) {
        await messages.recordSnapshot(
          {
            ...event,
            at: Date.parse(event.occurredAt),
            validationStatus: 'approved',
            statuses: {},
          },
          now(),
        );
      }
      if (event.transfer === 'inbound') await inbound.deliver(event.messageId, descriptor);
      return 'done';
    }
    // Ingress flags unknown actions; an action unknown to this build is skipped the same way.
    return 'skipped';
  };
}
