// @ts-check
/**
 * How the console shows a message's state: its delivery status as a badge, its validation
 * findings as a table, and on its own page the facts and both sides' statuses.
 */
import { facts, h, replace, tableHead } from './dom.js';

/**
 * @typedef {{ status: string, taxReportingStatus: string, lifecycleStatus: string }} Side
 * @typedef {{ identifier: string, name: string }} Party
 * @typedef {{ id: string, documentNo: string, timeReceived: string, origin: Party,
 *   destination: Party, validationStatus: string, sides: { inbound?: Side, outbound?: Side },
 *   validationResultCount: number }} Summary
 * @typedef {{ type: string, code: string, message: string, location: string }} ValidationResult
 * @typedef {{ eventId: string, action: string, transfer: string, occurredAt: string,
 *   data: { formerValue?: string, newValue?: string, properties?: Record<string, string> } }} Envelope
 */

/** The sandbox's findings, in its order: errors first. @param {ValidationResult[]} results */
export function validationTable(results) {
  return h(
    'table',
    { class: 'validation-results' },
    h('caption', null, `${results.length} finding${results.length === 1 ? '' : 's'}, errors first`),
    tableHead(['Type', 'Rule', 'Message', 'Location']),
    h(
      'tbody',
      null,
      results.map((r) =>
        h(
          'tr',
          { class: r.type },
          h(
            'td',
            null,
            h('span', { class: `badge ${r.type === 'error' ? 'bad' : 'warn'}` }, r.type),
          ),
          h('td', null, h('code', null, r.code)),
          h('td', null, r.message),
          h('td', null, h('code', { class: 'location' }, r.location)),
        ),
      ),
    ),
  );
}

/**
 * A delivery status, coloured by what it asks of the user: nothing, a look, or action.
 * @param {string} status
 */
export function statusBadge(status) {
  const tone =
    { delivered: 'ok', failed: 'bad', parked: 'bad', retrying: 'warn', pendingfailure: 'warn' }[
      status
    ] ?? '';
  return h('span', { class: `badge ${tone}` }, status);
}

/**
 * Draws a message's facts, its sides' statuses and its findings into `element`.
 * @param {HTMLElement} element
 * @param {any} message the admin API's view of the message
 */
export function renderMessageSummary(element, message) {
  replace(
    element,
    facts([
      ['Message id', h('code', null, message.id)],
      ['From', `${message.origin.name} (${message.origin.identifier})`],
      ['To', `${message.destination.name} (${message.destination.identifier})`],
      ['Validation', message.validationStatus],
    ]),
    h(
      'table',
      { class: 'sides' },
      h('caption', null, 'Statuses'),
      tableHead(['Side', 'Delivery', 'Tax reporting', 'Lifecycle']),
      h(
        'tbody',
        null,
        /** @type {const} */ (['outbound', 'inbound']).flatMap((transfer) => {
          /** @type {Side | undefined} */
          const side = message.sides[transfer];
          return side === undefined
            ? []
            : [
                h(
                  'tr',
                  { 'data-transfer': transfer },
                  h('th', { scope: 'row' }, transfer),
                  h('td', null, statusBadge(side.status)),
                  h('td', null, side.taxReportingStatus),
                  h('td', null, side.lifecycleStatus),
                ),
              ];
        }),
      ),
    ),
    message.validationResults.length === 0 ? null : validationTable(message.validationResults),
    h(
      'p',
      null,
      h(
        'a',
        { href: `#/deliveries?messageId=${encodeURIComponent(message.id)}` },
        'This message in the delivery log',
      ),
    ),
  );
}
