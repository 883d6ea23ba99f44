/** The simulator's in-memory state: participants, messages and the actions that change them. */
import type { Party } from '../../protocol/index.ts';
import type { Clock } from '../clock.ts';
import type { EventPublisher } from '../events.ts';
import { type BusinessActions, createBusinessActions } from './business-actions.ts';
import type { ManualTransitions } from './manual-transitions.ts';
import { createEventEmitter } from './message.ts';
import { createMessageModel, type MessageModel } from './messages.ts';
import {
  createParticipantRegistry,
  DEMO_SUPPLIER,
  type ParticipantRegistry,
} from './participants.ts';

export type { BusinessActions } from './business-actions.ts';
export { NO_ENDPOINT_ERROR } from './delivery.ts';
export type {
  FailDeliveryOptions,
  ManualFailureOptions,
  ManualTransitions,
} from './manual-transitions.ts';
export type { ProviderMessage, SideState } from './message.ts';
export { describe } from './message.ts';
export type { MessageModel } from './messages.ts';
export { MAX_DOCUMENT_NO_FILTER } from './messages.ts';
export type { ParticipantRegistry } from './participants.ts';
export { DEMO_SUPPLIER } from './participants.ts';

export interface ProviderModelOptions {
  clock: Clock;
  publisher: EventPublisher;
  sandbox: Party;
  /** @default crypto.randomUUID */
  randomId?: () => string;
  /** @default WEBHOOK_RETRY_WINDOW_MS */
  deliveryRetryWindowMs?: number;
}

export interface ProviderModel {
  participants: ParticipantRegistry;
  messages: MessageModel;
  /** Deliver, fail, park, pending failure, retry: what other parties and the console do. */
  transitions: ManualTransitions;
  /** Tax reports, payments and rejections. */
  actions: BusinessActions;
}

export function createProviderModel(options: ProviderModelOptions): ProviderModel {
  const participants = createParticipantRegistry({
    sandbox: options.sandbox,
    seed: [DEMO_SUPPLIER],
  });
  const ids = options.randomId === undefined ? {} : { randomId: options.randomId };
  const emitter = createEventEmitter({
    clock: options.clock,
    publisher: options.publisher,
    ...ids,
  });
  const messages = createMessageModel({
    clock: options.clock,
    emitter,
    participants,
    ...ids,
    ...(options.deliveryRetryWindowMs === undefined
      ? {}
      : { deliveryRetryWindowMs: options.deliveryRetryWindowMs }),
  });
  return {
    participants,
    messages,
    transitions: messages.transitions,
    actions: createBusinessActions({ emitter, ...ids }),
  };
}
