/** Public API of the provider's webhook dispatcher; see README.md in this folder. */
export { createDispatcher, type Dispatcher, type DispatcherOptions } from './dispatcher.ts';
export { type EndpointInput, generateSecret, MAX_ENDPOINTS_PER_PARTY } from './endpoints.ts';
export * from './errors.ts';
export { FORMATS, parseFilter, routeEvent, validateRules } from './routing.ts';
export { CATEGORY_ACTIONS } from './test-event.ts';
export * from './types.ts';
