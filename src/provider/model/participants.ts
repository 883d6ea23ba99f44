/**
 * Participants known to the simulator: the sandbox participant and its counterparties, each
 * with the settings of its set-up at the service that change what it receives
 * (docs/events.md#documents-with-errors, docs/events.md#response-messages):
 *
 * - acknowledgementResponse: when its outbound invoice passes validation (the moment of the
 *   outbound deliveryNotified), the participant receives an acknowledgement-level response,
 *   an MLR or an eMLR, as an inbound message of its own, announced with message events;
 * - deliverDocumentsWithErrors: the network lets its documents with validation errors through
 *   to pendingdelivery (errors in validationResults) instead of failing them;
 * - transferQuery: whether GET /messages/:mid (and its /status, /documents/core and the
 *   transaction calls) honour the simulator's `?transfer=` extension, or ignore it as a
 *   service that implements only what its specification shows would.
 */
import type { Party } from '../../protocol/index.ts';
import { ParticipantExistsError, ParticipantNotFoundError } from '../errors.ts';

export type AcknowledgementResponse = 'none' | 'MLR' | 'eMLR';

export interface ParticipantSettings {
  /** @default 'none' */
  acknowledgementResponse: AcknowledgementResponse;
  /** @default false */
  deliverDocumentsWithErrors: boolean;
  /** @default 'honoured' */
  transferQuery: 'honoured' | 'ignored';
}

export const DEFAULT_SETTINGS: Readonly<ParticipantSettings> = Object.freeze({
  acknowledgementResponse: 'none',
  deliverDocumentsWithErrors: false,
  transferQuery: 'honoured',
});

export interface ParticipantRegistry {
  /** The participant the messaging API acts as. */
  readonly sandbox: Party;
  add(participant: Party): Party;
  get(identifier: string): Party | undefined;
  list(): Party[];
  /** The participant's settings; defaults for a participant the simulator does not know. */
  settings(identifier: string): ParticipantSettings;
  /** Changes some settings of a known participant; returns them all. */
  updateSettings(identifier: string, changes: Partial<ParticipantSettings>): ParticipantSettings;
}

/** The counterparty that sends inbound demo traffic when a scenario names no sender. */
export const DEMO_SUPPLIER: Party = Object.freeze({
  identifier: '0192:111111111',
  name: 'Demo Supplier AS',
  countryCode: 'NO',
});

export function createParticipantRegistry(options: {
  sandbox: Party;
  seed?: readonly Party[];
}): ParticipantRegistry {
  const byId = new Map<string, Party>();
  const settingsById = new Map<string, ParticipantSettings>();
  const registry: ParticipantRegistry = {
    sandbox: options.sandbox,
    add(participant) {
      if (byId.has(participant.identifier)) {
        throw new ParticipantExistsError(participant.identifier);
      }
      const stored = Object.freeze({ ...participant });
      byId.set(stored.identifier, stored);
      settingsById.set(stored.identifier, { ...DEFAULT_SETTINGS });
      return stored;
    },
    get: (identifier) => byId.get(identifier),
    list: () => [...byId.values()],
    settings: (identifier) => ({ ...(settingsById.get(identifier) ?? DEFAULT_SETTINGS) }),
    updateSettings(identifier, changes) {
      const current = settingsById.get(identifier);
      if (current === undefined) throw new ParticipantNotFoundError(identifier);
      Object.assign(current, changes);
      return { ...current };
    },
  };
  registry.add(options.sandbox);
  for (const participant of options.seed ?? []) {
    if (!byId.has(participant.identifier)) registry.add(participant);
  }
  return registry;
}
