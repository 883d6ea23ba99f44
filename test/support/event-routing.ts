/**
 * The routing facts the provider's model publishes with each event (src/provider/events.ts),
 * for the dispatcher's tests, unit and integration; each test overrides what it is about.
 */
import type { EventRouting } from '../../src/provider/events.ts';

export function makeRouting(overrides: Partial<EventRouting> = {}): EventRouting {
  return {
    category: 'inbound',
    documentType: 'Invoice',
    format: 'XML',
    ownChange: false,
    ...overrides,
  };
}
