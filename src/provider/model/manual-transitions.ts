/**
 * The delivery transitions nobody calls the messaging API for: on the real service the
 * receiver's side, the network or a person in the management console makes them. The scenario
 * admin API and the console drive them (docs/statuses.md#transitions):
 *
 * - deliver:           pendingdelivery | retrying | pendingfailure -> delivered, the sender's
 *                      side only: the receiver's side waits for the receiver's own
 *                      mark-as-delivered, its duty (docs/retries.md#acknowledge-explicitly)
 * - fail:              a delivery in progress -> retrying (first failure), later -> failed
 * - park:              any -> parked, with a reason (both sides unless one is named)
 * - hold failure:      pendingdelivery | retrying -> pendingfailure (automatic retries stop)
 * - conclude failure:  pendingfailure -> failed
 * - retry:             a final status -> pendingdelivery and a new delivery with new events
 *
 * Each throws StateConflictError, naming the status, when it does not fit the message.
 */
import type { Transfer } from '../../protocol/index.ts';
import { StateConflictError } from '../errors.ts';
import { type Delivery, isFinal } from './delivery.ts';
import { describe, type EventEmitter, type ProviderMessage } from './message.ts';

export interface FailDeliveryOptions {
  /** Code of the first failure (network or receiver), in the `retrying` event. @default none */
  errorCode?: string | undefined;
  /** The first failure, in the `retrying` event. @default 'delivery attempt failed' */
  errorMessage?: string | undefined;
  /** Code of the final error, in the `failed` event. @default errorCode */
  finalErrorCode?: string | undefined;
  /** The final error, in the `failed` event. @default errorMessage */
  finalError?: string | undefined;
  /** @default 'outbound' */
  transfer?: Transfer | undefined;
  /** Time until the retries end. @default the model's deliveryRetryWindowMs */
  afterMs?: number | undefined;
}

export interface ManualFailureOptions {
  /** In the status event, before errorMessage. @default none */
  errorCode?: string | undefined;
  /** In the status event. */
  errorMessage?: string | undefined;
  /** @default 'outbound' */
  transfer?: Transfer | undefined;
}

export interface ManualTransitions {
  /** The receiver confirmed the delivery of an outbound message; false when already delivered. */
  confirmDelivery(id: string): boolean;
  failDelivery(id: string, options: FailDeliveryOptions): void;
  /** False when every side named was already parked (no event). */
  park(id: string, reason: string, transfer?: Transfer): boolean;
  /** A failing delivery handed to manual handling: pendingfailure (not final). */
  holdFailure(id: string, options: ManualFailureOptions): void;
  /** Manual handling concludes and the failure stays: pendingfailure -> failed. */
  concludeFailure(id: string, options: ManualFailureOptions): void;
  retry(id: string, transfer?: Transfer): void;
}

export function createManualTransitions(deps: {
  get: (id: string) => ProviderMessage;
  emitter: EventEmitter;
  delivery: Delivery;
}): ManualTransitions {
  const { get, emitter, delivery } = deps;
  return {
    confirmDelivery(id) {
      const message = get(id);
      const status = message.sides.outbound?.status ?? '';
      if (status === 'delivered') return false;
      if (!['pendingdelivery', 'retrying', 'pendingfailure'].includes(status)) {
        throw new StateConflictError(
          id,
          `Message ${id} is ${status}; only a message being delivered can be confirmed.`,
        );
      }
      // The receiver's access point confirmed the delivery. The receiver's own side is not
      // touched: it becomes delivered only by the receiver's mark-as-delivered.
      delivery.confirmOutbound(message, message.destination.identifier);
      return true;
    },

    failDelivery(id, failure) {
      const message = get(id);
      const transfer = failure.transfer ?? 'outbound';
      const status = message.sides[transfer]?.status;
      if (status === undefined || isFinal(status) || status === 'received' || status === 'notset') {
        throw new StateConflictError(
          id,
          `Message ${id} has no ${transfer} delivery in progress (status ${status ?? 'none'}).`,
        );
      }
      const errorMessage = failure.errorMessage ?? 'delivery attempt failed';
      // Only the first failure is reported; later attempts of the same delivery send no event.
      emitter.changeStatus(message, transfer, 'status', 'retrying', {
        properties: errorProperties(failure.errorCode, errorMessage),
      });
      delivery.scheduleFailure(
        message,
        transfer,
        errorProperties(
          failure.finalErrorCode ?? failure.errorCode,
          failure.finalError ?? errorMessage,
        ),
        failure.afterMs ?? delivery.retryWindowMs,
      );
    },

    park(id, reason, transfer) {
      const message = get(id);
      delivery.cancelTimer(message);
      let changed = false;
      for (const t of transfer ? [transfer] : (['outbound', 'inbound'] as const)) {
        changed =
          emitter.changeStatus(message, t, 'status', 'parked', { properties: { reason } }) ||
          changed;
      }
      return changed;
    },

    holdFailure(
      id,
      { errorCode, errorMessage = 'delivery failed; under manual handling', transfer = 'outbound' },
    ) {
      const message = get(id);
      const status = message.sides[transfer]?.status;
      if (status !== 'pendingdelivery' && status !== 'retrying') {
        throw new StateConflictError(
          id,
          `Message ${id} is ${status ?? 'not'} ${transfer}; only a delivery in progress can be held for manual handling.`,
        );
      }
      // Automatic retries stop: a person decides now (retry succeeds, or the failure stays).
      delivery.cancelTimer(message);
      emitter.changeStatus(message, transfer, 'status', 'pendingfailure', {
        properties: errorProperties(errorCode, errorMessage),
      });
    },

    concludeFailure(id, { errorCode, errorMessage = 'delivery failed', transfer = 'outbound' }) {
      const message = get(id);
      const status = message.sides[transfer]?.status;
      if (status !== 'pendingfailure') {
        throw new StateConflictError(
          id,
          `Message ${id} is ${status ?? 'not'} ${transfer}; only a pendingfailure can be concluded.`,
        );
      }
      emitter.changeStatus(message, transfer, 'status', 'failed', {
        properties: errorProperties(errorCode, errorMessage),
      });
    },

    retry(id, transfer) {
      const message = get(id);
      if (message.validationStatus !== 'approved') {
        throw new StateConflictError(
          id,
          `Message ${id} did not pass validation; fix the document and send a new message.`,
        );
      }
      const final = (['outbound', 'inbound'] as const).filter(
        (t) =>
          (transfer === undefined || t === transfer) && isFinal(message.sides[t]?.status ?? ''),
      );
      if (final.length === 0) {
        throw new StateConflictError(
          id,
          `Message ${id} is not in a final state; nothing to retry.`,
        );
      }
      delivery.cancelTimer(message);
      if (final.includes('outbound')) {
        emitter.changeStatus(message, 'outbound', 'status', 'pendingdelivery');
        delivery.deliverToReceiver(message);
      } else {
        emitter.changeStatus(message, 'inbound', 'status', 'pendingdelivery');
        emitter.emit(message, 'inbound', 'deliveryNotified', describe(message, 'inbound'), false);
      }
    },
  };
}

/** errorCode first when there is one: "something failed" carries both (docs/events.md#status-properties). */
function errorProperties(errorCode: string | undefined, errorMessage: string) {
  return errorCode === undefined ? { errorMessage } : { errorCode, errorMessage };
}
