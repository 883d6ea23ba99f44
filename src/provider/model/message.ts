/**
 * A message as the simulator keeps it, and the two primitives every state change goes
 * through: `emit` (build an envelope, record it on the message, hand it to the publisher) and
 * `changeStatus` (set one status of one side and emit its status event, only on a real change).
 *
 * A message has up to two sides. The outbound side belongs to the sender (origin) and exists
 * from submission; the inbound side belongs to the receiver (destination) and exists once the
 * message was delivered to a receiver the simulator knows. In a self-send both sides belong to
 * the same participant, so every event happens twice, once per transfer (docs/events.md#actions).
 */
import { randomUUID } from 'node:crypto';
import type {
  DeliveryStatus,
  DocumentEntry,
  LifecycleStatus,
  MessageDescriptor,
  Party,
  StatusAction,
  TaxReportingStatus,
  Transfer,
  ValidationResult,
  WebhookEnvelope,
} from '../../protocol/index.ts';
import type { Clock, Timer } from '../clock.ts';
import { coreEntry, formatOfContentType } from '../document-formats.ts';
import type { EventPublisher } from '../events.ts';

export interface SideState {
  status: DeliveryStatus;
  taxReportingStatus: TaxReportingStatus;
  lifecycleStatus: LifecycleStatus;
  /** Position in GET /messages listings; increases with each new side, so cursors are stable. */
  listSequence: number;
}

export interface ProviderMessage {
  id: string;
  /** Business transaction: `SubmitInvoice`, or a response's (responses.ts). */
  action: string;
  documentNo: string;
  /** ISO 8601 in whole seconds. */
  timeReceived: string;
  origin: Party;
  destination: Party;
  /** The JSON body exactly as submitted (GET /transactions/<kebab-case action>). */
  body: Record<string, unknown>;
  /**
   * `none` until validation ran (docs/decisions.md), then `approved` (also for a document the
   * network let through with errors) or `rejected`.
   */
  validationStatus: 'none' | 'approved' | 'rejected';
  validationResults: ValidationResult[];
  documents: DocumentEntry[];
  /** A scenario's request for a core document of at least this many bytes (core-document.ts). */
  coreDocumentBytes?: number;
  sides: Partial<Record<Transfer, SideState>>;
  events: WebhookEnvelope[];
  /** The scheduled end of a failing delivery (retrying -> failed), if any. */
  deliveryTimer?: Timer;
}

export type StatusField = 'status' | 'taxReportingStatus' | 'lifecycleStatus';

const ACTION_BY_FIELD: Record<StatusField, StatusAction> = {
  status: 'messageStatusChanged',
  taxReportingStatus: 'taxReportingStatusChanged',
  lifecycleStatus: 'lifecycleStatusChanged',
};

export function partyOf(message: ProviderMessage, transfer: Transfer): string {
  return transfer === 'outbound' ? message.origin.identifier : message.destination.identifier;
}

export function describe(message: ProviderMessage, transfer: Transfer): MessageDescriptor {
  const side = message.sides[transfer];
  if (side === undefined) throw new Error(`message ${message.id} has no ${transfer} side`);
  // Field order follows docs/events.md#message-descriptor; validationResults is deliberately absent.
  return {
    uniqueId: message.id,
    timeReceived: message.timeReceived,
    documentNo: message.documentNo,
    status: side.status,
    transfer,
    validationStatus: message.validationStatus,
    taxReportingStatus: side.taxReportingStatus,
    lifecycleStatus: side.lifecycleStatus,
    importStatus: 'NotSet',
    action: message.action,
    originParty: { ...message.origin },
    destinationParty: { ...message.destination },
    documents: message.documents.map((d) => ({ ...d })),
  };
}

export interface EventEmitter {
  emit(
    message: ProviderMessage,
    transfer: Transfer,
    action: string,
    data: unknown,
    ownChange: boolean,
  ): WebhookEnvelope;
  /**
   * Sets one status of one side and emits its status event. Returns false (and emits nothing)
   * when the side does not exist or already has the value. `properties` is called per side so
   * the actor's event can carry actionMessageId and the other party's cannot.
   */
  changeStatus(
    message: ProviderMessage,
    transfer: Transfer,
    field: StatusField,
    newValue: string,
    options?: { properties?: Record<string, string> | undefined; actor?: string | undefined },
  ): boolean;
}

export function createEventEmitter(deps: {
  clock: Clock;
  publisher: EventPublisher;
  randomId?: () => string;
}): EventEmitter {
  const randomId = deps.randomId ?? randomUUID;
  const emitter: EventEmitter = {
    emit(message, transfer, action, data, ownChange) {
      const envelope: WebhookEnvelope = {
        eventId: randomId(),
        action,
        transfer,
        occurredAt: new Date(deps.clock.now()).toISOString(),
        test: false,
        party: partyOf(message, transfer),
        messageId: message.id,
        data,
      };
      message.events.push(envelope);
      // Routing filters match the core document's type and format (docs/webhook-endpoints.md#routing),
      // read from the descriptor's Core entry, as a consumer sees them.
      const core = coreEntry(message.documents);
      deps.publisher.publish(envelope, {
        category: transfer,
        documentType: core?.name ?? 'Invoice',
        format: core === undefined ? 'XML' : formatOfContentType(core.contentType),
        ownChange,
      });
      return envelope;
    },
    changeStatus(message, transfer, field, newValue, options = {}) {
      const side = message.sides[transfer];
      if (side === undefined || side[field] === newValue) return false;
      const formerValue = side[field];
      (side as unknown as Record<StatusField, string>)[field] = newValue;
      const properties = options.properties;
      const data =
        properties !== undefined && Object.keys(properties).length > 0
          ? { formerValue, newValue, properties }
          : { formerValue, newValue };
      const ownChange = options.actor !== undefined && options.actor === partyOf(message, transfer);
      emitter.emit(message, transfer, ACTION_BY_FIELD[field], data, ownChange);
      return true;
    },
  };
  return emitter;
}
