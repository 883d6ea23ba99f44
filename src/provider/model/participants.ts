/** Participants known to the simulator: the sandbox participant and its counterparties. */
import type { Party } from '../../protocol/index.ts';
import { ParticipantExistsError } from '../errors.ts';

export interface ParticipantRegistry {
  /** The participant the messaging API acts as. */
  readonly sandbox: Party;
  add(participant: Party): Party;
  get(identifier: string): Party | undefined;
  list(): Party[];
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
  const registry: ParticipantRegistry = {
    sandbox: options.sandbox,
    add(participant) {
      if (byId.has(participant.identifier)) {
        throw new ParticipantExistsError(participant.identifier);
      }
      const stored = Object.freeze({ ...participant });
      byId.set(stored.identifier, stored);
      return stored;
    },
    get: (identifier) => byId.get(identifier),
    list: () => [...byId.values()],
  };
  registry.add(options.sandbox);
  for (const participant of options.seed ?? []) {
    if (!byId.has(participant.identifier)) registry.add(participant);
  }
  return registry;
}
