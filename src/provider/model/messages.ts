/**
 * The delivery state machine of SPEC.md section 3, for messages of the SubmitInvoice action.
 *
 * Submission puts the sender's outbound side in `received` (or `notset` while `more=true`
 * keeps the message open; the simulator has no call that adds documents, so such a message
 * stays open and only its `created` event is sent). Validation runs on the next clock tick,
 * never inside the submit call, as on the real service: a successful submit says nothing
 * about validation. It moves the outbound side to `failed` (errors; validationStatus
 * `rejected`) or to `pendingdelivery` with a `deliveryNotified`, and then delivers:
 *
 * - to a receiver the simulator knows (including the sender itself, a self-send), the inbound
 *   side appears with `created`, `messageStatusChanged` to pendingdelivery and
 *   `deliveryNotified`. The receiver's mark-as-delivered moves the inbound side to
 *   `delivered`, which also confirms the outbound side as `delivered`.
 * - to an unknown receiver, the outbound side goes to `retrying` with "no endpoint found for
 *   the receiver" and, when the retry window passes on the clock, to `failed`.
 *
 * `delivered`, `failed` and `parked` are final; only a manual retry leaves them, starting a
 * new delivery with new events. Every change emits exactly one status event per side, and no
 * event when the value does not change.
 */
import { randomUUID } from 'node:crypto';
import {
  FINAL_DELIVERY_STATUSES,
  type MessageDescriptor,
  type Transfer,
  WEBHOOK_RETRY_WINDOW_MS,
} from '../../protocol/index.ts';
import type { Clock } from '../clock.ts';
import { InvalidRequestError, MessageNotFoundError, StateConflictError } from '../errors.ts';
import { getPath, validateInvoice } from '../invoice-validation.ts';
import { PEPPOL_BILLING_TRANSACTION } from '../ubl-invoice.ts';
import { describe, type EventEmitter, type ProviderMessage, partyOf } from './message.ts';
import type { ParticipantRegistry } from './participants.ts';

export const NO_ENDPOINT_ERROR = 'no endpoint found for the receiver';

export interface MessageModelOptions {
  clock: Clock;
  emitter: EventEmitter;
  participants: ParticipantRegistry;
  /** @default crypto.randomUUID */
  randomId?: () => string;
  /**
   * How long a failing delivery stays `retrying` before it becomes `failed`, in clock time.
   * @default WEBHOOK_RETRY_WINDOW_MS (about two hours, as the webhook retries)
   */
  deliveryRetryWindowMs?: number;
}

export interface ListQuery {
  status?: string | undefined;
  transfer?: Transfer | undefined;
  cursor?: string | undefined;
  limit: number;
}

export interface FailDeliveryOptions {
  /** The first failure, in the `retrying` event. @default 'delivery attempt failed' */
  errorMessage?: string | undefined;
  /** The final error, in the `failed` event. @default errorMessage */
  finalError?: string | undefined;
  /** @default 'outbound' */
  transfer?: Transfer | undefined;
  /** Time until the retries end. @default the model's deliveryRetryWindowMs */
  afterMs?: number | undefined;
}

export interface ManualFailureOptions {
  /** In the status event. */
  errorMessage?: string | undefined;
  /** @default 'outbound' */
  transfer?: Transfer | undefined;
}

export interface MessageModel {
  submitInvoice(input: {
    sender: string;
    body: Record<string, unknown>;
    more?: boolean;
  }): ProviderMessage;
  get(id: string): ProviderMessage;
  all(): ProviderMessage[];
  /** The side of `id` that `party` sees; a self-send is both, `transfer` picks (default inbound). */
  sideFor(
    id: string,
    party: string,
    transfer?: Transfer,
  ): { message: ProviderMessage; transfer: Transfer };
  list(party: string, query: ListQuery): { items: MessageDescriptor[]; nextCursor: string | null };
  /** Returns false when the message was already delivered (no event). */
  markAsDelivered(id: string, party: string): boolean;
  /** Returns false when the message was already failed (no event). */
  markAsFailed(id: string, party: string, reason?: string): boolean;
  /** The receiver confirmed the delivery of an outbound message (admin `deliver`). */
  confirmDelivery(id: string): boolean;
  failDelivery(id: string, options: FailDeliveryOptions): void;
  park(id: string, reason: string, transfer?: Transfer): boolean;
  /** A failing delivery handed to manual handling: pendingfailure (not final). */
  holdFailure(id: string, options: ManualFailureOptions): void;
  /** Manual handling concludes and the failure stays: pendingfailure -> failed. */
  concludeFailure(id: string, options: ManualFailureOptions): void;
  retry(id: string, transfer?: Transfer): void;
  close(): void;
}

const isFinal = (status: string) => FINAL_DELIVERY_STATUSES.has(status);
const wholeSeconds = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

export function createMessageModel(options: MessageModelOptions): MessageModel {
  const { clock, emitter, participants } = options;
  const randomId = options.randomId ?? randomUUID;
  const retryWindowMs = options.deliveryRetryWindowMs ?? WEBHOOK_RETRY_WINDOW_MS;
  const messages = new Map<string, ProviderMessage>();
  let listSequence = 0;

  const newSide = (status: 'received' | 'notset') => ({
    status,
    taxReportingStatus: 'none' as const,
    lifecycleStatus: 'none' as const,
    listSequence: ++listSequence,
  });

  function get(id: string): ProviderMessage {
    const message = messages.get(id);
    if (message === undefined) throw new MessageNotFoundError(id);
    return message;
  }

  function cancelDeliveryTimer(message: ProviderMessage): void {
    message.deliveryTimer?.cancel();
    delete message.deliveryTimer;
  }

  function scheduleFailure(
    message: ProviderMessage,
    transfer: Transfer,
    error: string,
    afterMs: number,
  ) {
    cancelDeliveryTimer(message);
    message.deliveryTimer = clock.setTimer(() => {
      delete message.deliveryTimer;
      if (message.sides[transfer]?.status !== 'retrying') return;
      emitter.changeStatus(message, transfer, 'status', 'failed', {
        properties: { errorMessage: error },
      });
    }, afterMs);
  }

  function warningsProperty(message: ProviderMessage): Record<string, string> | undefined {
    if (message.validationResults.length === 0) return undefined;
    return { validationResults: JSON.stringify(message.validationResults) };
  }

  function deliverToReceiver(message: ProviderMessage): void {
    if (participants.get(message.destination.identifier) === undefined) {
      emitter.changeStatus(message, 'outbound', 'status', 'retrying', {
        properties: { errorMessage: NO_ENDPOINT_ERROR },
      });
      scheduleFailure(message, 'outbound', NO_ENDPOINT_ERROR, retryWindowMs);
      return;
    }
    let inbound = message.sides.inbound;
    if (inbound === undefined) {
      inbound = newSide('received');
      message.sides.inbound = inbound;
      emitter.emit(message, 'inbound', 'created', describe(message, 'inbound'), false);
    }
    if (inbound.status === 'pendingdelivery') return;
    emitter.changeStatus(message, 'inbound', 'status', 'pendingdelivery', {
      properties: warningsProperty(message),
    });
    emitter.emit(message, 'inbound', 'deliveryNotified', describe(message, 'inbound'), false);
  }

  function validateAndQueue(message: ProviderMessage): void {
    message.validationResults = validateInvoice(message.body);
    const firstError = message.validationResults.find((r) => r.type === 'error');
    if (firstError !== undefined) {
      message.validationStatus = 'rejected';
      emitter.changeStatus(message, 'outbound', 'status', 'failed', {
        properties: {
          errorCode: firstError.code,
          errorMessage: firstError.message,
          validationResults: JSON.stringify(message.validationResults),
        },
      });
      return;
    }
    message.validationStatus = 'approved';
    emitter.changeStatus(message, 'outbound', 'status', 'pendingdelivery', {
      properties: warningsProperty(message),
    });
    emitter.emit(message, 'outbound', 'deliveryNotified', describe(message, 'outbound'), false);
    deliverToReceiver(message);
  }

  function inboundFor(id: string, party: string): ProviderMessage {
    return model.sideFor(id, party, 'inbound').message;
  }

  const model: MessageModel = {
    submitInvoice({ sender, body, more = false }) {
      const origin = participants.get(sender);
      if (origin === undefined) throw new InvalidRequestError(`Unknown sender ${sender}`, 'from');
      const text = (path: string) => {
        const value = getPath(body, path);
        return typeof value === 'string' ? value : '';
      };
      const receiverId = text('messageHandling.receiverIdentifier');
      const destination = participants.get(receiverId) ?? {
        identifier: receiverId,
        name: text('invoice.customer.name'),
        countryCode: text('invoice.customer.address.countryCode'),
      };
      const document = (index: number, contentType: string, attachmentType: string) => ({
        index,
        name: 'Invoice',
        contentType,
        attachmentType,
        isTransformed: false,
        transaction: { ...PEPPOL_BILLING_TRANSACTION },
      });
      const message: ProviderMessage = {
        id: randomId(),
        action: 'SubmitInvoice',
        documentNo: text('invoice.invoiceNo'),
        timeReceived: wholeSeconds(clock.now()),
        origin: { ...origin },
        destination: { ...destination },
        body: structuredClone(body),
        validationStatus: 'pending',
        validationResults: [],
        documents: [
          document(0, 'application/xml', 'Core'),
          document(1, 'application/json', 'Original'),
        ],
        sides: { outbound: newSide(more ? 'notset' : 'received') },
        events: [],
      };
      messages.set(message.id, message);
      emitter.emit(message, 'outbound', 'created', describe(message, 'outbound'), false);
      if (!more) clock.setTimer(() => validateAndQueue(message), 0);
      return message;
    },

    get,
    all: () => [...messages.values()],

    sideFor(id, party, transfer) {
      const message = get(id);
      const own = (t: Transfer) => message.sides[t] !== undefined && partyOf(message, t) === party;
      const chosen = transfer ?? (own('inbound') ? 'inbound' : 'outbound');
      if (!own(chosen)) throw new MessageNotFoundError(id);
      return { message, transfer: chosen };
    },

    list(party, query) {
      const after = query.cursor === undefined ? 0 : decodeCursor(query.cursor);
      const entries: { sequence: number; message: ProviderMessage; transfer: Transfer }[] = [];
      for (const message of messages.values()) {
        for (const transfer of ['inbound', 'outbound'] as const) {
          const side = message.sides[transfer];
          if (side === undefined || partyOf(message, transfer) !== party) continue;
          if (query.transfer !== undefined && query.transfer !== transfer) continue;
          if (query.status !== undefined && query.status !== side.status) continue;
          if (side.listSequence <= after) continue;
          entries.push({ sequence: side.listSequence, message, transfer });
        }
      }
      entries.sort((a, b) => a.sequence - b.sequence);
      const page = entries.slice(0, query.limit);
      const last = page.at(-1);
      return {
        items: page.map((e) => describe(e.message, e.transfer)),
        nextCursor: entries.length > page.length && last ? encodeCursor(last.sequence) : null,
      };
    },

    markAsDelivered(id, party) {
      const message = inboundFor(id, party);
      const status = message.sides.inbound?.status ?? '';
      if (status === 'delivered') return false;
      if (isFinal(status)) {
        throw new StateConflictError(
          id,
          `Message ${id} is ${status}; it cannot be marked delivered.`,
        );
      }
      emitter.changeStatus(message, 'inbound', 'status', 'delivered', { actor: party });
      confirmOutbound(message, party);
      return true;
    },

    markAsFailed(id, party, reason) {
      const message = inboundFor(id, party);
      const status = message.sides.inbound?.status ?? '';
      if (status === 'failed') return false;
      if (isFinal(status)) {
        throw new StateConflictError(id, `Message ${id} is ${status}; it cannot be marked failed.`);
      }
      const properties = reason === undefined ? undefined : { errorMessage: reason };
      emitter.changeStatus(message, 'inbound', 'status', 'failed', { properties, actor: party });
      cancelDeliveryTimer(message);
      if (message.sides.outbound !== undefined && !isFinal(message.sides.outbound.status)) {
        emitter.changeStatus(message, 'outbound', 'status', 'failed', {
          properties: {
            errorMessage: `the receiver could not take the message${reason ? `: ${reason}` : ''}`,
          },
          actor: party,
        });
      }
      return true;
    },

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
      const receiver = message.destination.identifier;
      const inbound = message.sides.inbound;
      if (inbound !== undefined && !isFinal(inbound.status)) {
        emitter.changeStatus(message, 'inbound', 'status', 'delivered', { actor: receiver });
      }
      confirmOutbound(message, receiver);
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
        properties: { errorMessage },
      });
      scheduleFailure(
        message,
        transfer,
        failure.finalError ?? errorMessage,
        failure.afterMs ?? retryWindowMs,
      );
    },

    park(id, reason, transfer) {
      const message = get(id);
      cancelDeliveryTimer(message);
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
      { errorMessage = 'delivery failed; under manual handling', transfer = 'outbound' },
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
      cancelDeliveryTimer(message);
      emitter.changeStatus(message, transfer, 'status', 'pendingfailure', {
        properties: { errorMessage },
      });
    },

    concludeFailure(id, { errorMessage = 'delivery failed', transfer = 'outbound' }) {
      const message = get(id);
      const status = message.sides[transfer]?.status;
      if (status !== 'pendingfailure') {
        throw new StateConflictError(
          id,
          `Message ${id} is ${status ?? 'not'} ${transfer}; only a pendingfailure can be concluded.`,
        );
      }
      emitter.changeStatus(message, transfer, 'status', 'failed', { properties: { errorMessage } });
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
      cancelDeliveryTimer(message);
      if (final.includes('outbound')) {
        emitter.changeStatus(message, 'outbound', 'status', 'pendingdelivery');
        deliverToReceiver(message);
      } else {
        emitter.changeStatus(message, 'inbound', 'status', 'pendingdelivery');
        emitter.emit(message, 'inbound', 'deliveryNotified', describe(message, 'inbound'), false);
      }
    },

    close() {
      for (const message of messages.values()) cancelDeliveryTimer(message);
    },
  };

  /** The receiver took the message: the sender's side becomes delivered too. */
  function confirmOutbound(message: ProviderMessage, actor: string): void {
    cancelDeliveryTimer(message);
    const outbound = message.sides.outbound;
    if (outbound !== undefined && !isFinal(outbound.status)) {
      emitter.changeStatus(message, 'outbound', 'status', 'delivered', { actor });
    }
  }

  return model;
}

function encodeCursor(sequence: number): string {
  return Buffer.from(`after:${sequence}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const match = /^after:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (match?.[1] === undefined)
    throw new InvalidRequestError('cursor is not a cursor this API returned', 'cursor');
  return Number(match[1]);
}
