/**
 * The delivery state machine of docs/statuses.md#transitions, for messages of the SubmitInvoice action.
 *
 * Submission puts the sender's outbound side in `received` (or `notset` while `more=true`
 * keeps the message open; the simulator has no call that adds documents, so such a message
 * stays open and only its `created` event is sent). Validation runs on the next clock tick,
 * never inside the submit call, as on the real service: a successful submit says nothing
 * about validation, and until it has run the descriptor's validationStatus is `none`. It
 * moves the outbound side to `failed` (errors; validationStatus `rejected`) or to
 * `pendingdelivery` with a `deliveryNotified` (validationStatus `approved`; also with errors
 * when the sender's network lets them through, participants.ts), sends the sender its
 * acknowledgement-level response when it is set up for one (responses.ts), and delivers:
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
 *
 * This module keeps the messages and makes the participant's own moves (submission,
 * mark-as-delivered, mark-as-failed); delivery.ts carries a message to its receiver, and
 * manual-transitions.ts has the moves of the other parties and of the console (deliver, fail,
 * park, pending failure, retry).
 */
import { randomUUID } from 'node:crypto';
import {
  type MessageDescriptor,
  type Transfer,
  WEBHOOK_RETRY_WINDOW_MS,
} from '../../protocol/index.ts';
import type { Clock } from '../clock.ts';
import {
  type CoreDocumentChoice,
  DEFAULT_CORE_DOCUMENT,
  submittedDocuments,
} from '../document-formats.ts';
import { InvalidRequestError, MessageNotFoundError, StateConflictError } from '../errors.ts';
import { getPath, validateInvoice } from '../invoice-validation.ts';
import { createDelivery, isFinal } from './delivery.ts';
import { createManualTransitions, type ManualTransitions } from './manual-transitions.ts';
import { describe, type EventEmitter, type ProviderMessage, partyOf } from './message.ts';
import type { ParticipantRegistry } from './participants.ts';
import { buildResponseMessage } from './responses.ts';

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

/**
 * The longest `documentNo` a list query takes: far past any invoice number, short of a query
 * string used to carry a payload.
 */
export const MAX_DOCUMENT_NO_FILTER = 200;

export interface ListQuery {
  status?: string | undefined;
  transfer?: Transfer | undefined;
  /** Only messages whose descriptor has exactly this documentNo (docs/decisions.md#message-list). */
  documentNo?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

export interface MessageModel {
  submitInvoice(input: {
    sender: string;
    body: Record<string, unknown>;
    more?: boolean;
    /** The core document's type and format (a scenario's choice). @default Invoice/XML */
    document?: CoreDocumentChoice | undefined;
    /** Pad the core document to at least this many bytes. @default no padding */
    coreDocumentBytes?: number | undefined;
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
  /** The transitions the participant does not make itself; the admin API and console drive them. */
  readonly transitions: ManualTransitions;
  /** Cancels every delivery timer. */
  close(): void;
}

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

  const delivery = createDelivery({ clock, emitter, participants, retryWindowMs, newSide });

  function validateAndQueue(message: ProviderMessage): void {
    message.validationResults = validateInvoice(message.body);
    const firstError = message.validationResults.find((r) => r.type === 'error');
    const settings = participants.settings(message.origin.identifier);
    // A network set up to let documents with errors through delivers them with their errors
    // in validationResults (docs/events.md#status-properties); otherwise errors end the message at once.
    if (firstError !== undefined && !settings.deliverDocumentsWithErrors) {
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
      properties: delivery.warningsProperty(message),
    });
    emitter.emit(message, 'outbound', 'deliveryNotified', describe(message, 'outbound'), false);
    // The acknowledgement-level response comes at the moment of deliveryNotified (docs/events.md#message-events).
    if (settings.acknowledgementResponse !== 'none') {
      const response = buildResponseMessage(message, settings.acknowledgementResponse, {
        id: randomId(),
        timeReceived: wholeSeconds(clock.now()),
        issueDate: new Date(clock.now()).toISOString().slice(0, 10),
      });
      messages.set(response.id, response);
      delivery.announceInbound(response);
    }
    delivery.deliverToReceiver(message);
  }

  function inboundFor(id: string, party: string): ProviderMessage {
    return model.sideFor(id, party, 'inbound').message;
  }

  const model: MessageModel = {
    submitInvoice({ sender, body, more = false, document, coreDocumentBytes }) {
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
      const message: ProviderMessage = {
        id: randomId(),
        action: 'SubmitInvoice',
        documentNo: text('invoice.invoiceNo'),
        timeReceived: wholeSeconds(clock.now()),
        origin: { ...origin },
        destination: { ...destination },
        body: structuredClone(body),
        validationStatus: 'none',
        validationResults: [],
        documents: submittedDocuments(
          document ??
            // A body that says it is a credit note is one, unless a scenario chose otherwise.
            (getPath(body, 'invoice.documentType') === 'CreditNote'
              ? { type: 'CreditNote', format: 'XML' }
              : DEFAULT_CORE_DOCUMENT),
        ),
        ...(coreDocumentBytes === undefined ? {} : { coreDocumentBytes }),
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
          if (query.documentNo !== undefined && query.documentNo !== message.documentNo) continue;
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
      delivery.confirmOutbound(message, party);
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
      delivery.cancelTimer(message);
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

    transitions: createManualTransitions({ get, emitter, delivery }),

    close() {
      for (const message of messages.values()) delivery.cancelTimer(message);
    },
  };
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
