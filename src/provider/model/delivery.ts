/**
 * How a message travels from its sender to its receiver once it passed validation, shared by
 * the participant's own calls (messages.ts) and the manual transitions of the console
 * (manual-transitions.ts): delivery to a known receiver, the retrying -> failed timer of a
 * delivery that cannot succeed, and the sender's side following the receiver's.
 */
import { FINAL_DELIVERY_STATUSES, type Transfer } from '../../protocol/index.ts';
import type { Clock } from '../clock.ts';
import { describe, type EventEmitter, type ProviderMessage, type SideState } from './message.ts';
import type { ParticipantRegistry } from './participants.ts';

export const NO_ENDPOINT_ERROR = 'no endpoint found for the receiver';

export const isFinal = (status: string) => FINAL_DELIVERY_STATUSES.has(status);

export interface Delivery {
  /** How long a failing delivery stays `retrying` before it becomes `failed`. */
  readonly retryWindowMs: number;
  /**
   * Hands a validated message to its receiver: the inbound side appears (created,
   * pendingdelivery, deliveryNotified), or, for a receiver the simulator does not know, the
   * outbound side retries and fails when the retry window passes.
   */
  deliverToReceiver(message: ProviderMessage): void;
  /**
   * The receiver's side of a message it can fetch now: created (once), pendingdelivery with
   * the validation findings, deliveryNotified. Also how a response message (an MLR) arrives.
   */
  announceInbound(message: ProviderMessage): void;
  /** After `afterMs` of clock time a side still `retrying` becomes `failed` with `error`. */
  scheduleFailure(
    message: ProviderMessage,
    transfer: Transfer,
    error: Record<string, string>,
    afterMs: number,
  ): void;
  cancelTimer(message: ProviderMessage): void;
  /** The receiver took the message: the sender's side becomes delivered too. */
  confirmOutbound(message: ProviderMessage, actor: string): void;
  /** validationResults for a status event, when validation found anything. */
  warningsProperty(message: ProviderMessage): Record<string, string> | undefined;
}

export function createDelivery(deps: {
  clock: Clock;
  emitter: EventEmitter;
  participants: ParticipantRegistry;
  retryWindowMs: number;
  /** A new side in its first status; owned by the message store, which numbers sides for listings. */
  newSide: (status: 'received') => SideState;
}): Delivery {
  const { clock, emitter, participants } = deps;

  const delivery: Delivery = {
    retryWindowMs: deps.retryWindowMs,

    deliverToReceiver(message) {
      if (participants.get(message.destination.identifier) === undefined) {
        emitter.changeStatus(message, 'outbound', 'status', 'retrying', {
          properties: { errorMessage: NO_ENDPOINT_ERROR },
        });
        delivery.scheduleFailure(
          message,
          'outbound',
          { errorMessage: NO_ENDPOINT_ERROR },
          deps.retryWindowMs,
        );
        return;
      }
      delivery.announceInbound(message);
    },

    announceInbound(message) {
      let inbound = message.sides.inbound;
      if (inbound === undefined) {
        inbound = deps.newSide('received');
        message.sides.inbound = inbound;
        emitter.emit(message, 'inbound', 'created', describe(message, 'inbound'), false);
      }
      if (inbound.status === 'pendingdelivery') return;
      emitter.changeStatus(message, 'inbound', 'status', 'pendingdelivery', {
        properties: delivery.warningsProperty(message),
      });
      emitter.emit(message, 'inbound', 'deliveryNotified', describe(message, 'inbound'), false);
    },

    scheduleFailure(message, transfer, error, afterMs) {
      delivery.cancelTimer(message);
      message.deliveryTimer = clock.setTimer(() => {
        delete message.deliveryTimer;
        if (message.sides[transfer]?.status !== 'retrying') return;
        emitter.changeStatus(message, transfer, 'status', 'failed', { properties: error });
      }, afterMs);
    },

    cancelTimer(message) {
      message.deliveryTimer?.cancel();
      delete message.deliveryTimer;
    },

    confirmOutbound(message, actor) {
      delivery.cancelTimer(message);
      const outbound = message.sides.outbound;
      if (outbound !== undefined && !isFinal(outbound.status)) {
        emitter.changeStatus(message, 'outbound', 'status', 'delivered', { actor });
      }
    },

    warningsProperty(message) {
      if (message.validationResults.length === 0) return undefined;
      return { validationResults: JSON.stringify(message.validationResults) };
    },
  };
  return delivery;
}
