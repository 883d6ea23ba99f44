// @ts-check
/** A message's events as the console shows them: a table, and a few words for each. */
import { formatTime, h, replace, tableHead } from './dom.js';

/** @typedef {import('./message-summary.js').Envelope} Envelope */

/**
 * Draws a message's events into `element`, newest first.
 * @param {HTMLElement} element
 * @param {{ events: Envelope[] }} message
 */
export function renderMessageEvents(element, message) {
  /** @type {Envelope[]} */
  const list = [...message.events].reverse();
  replace(
    element,
    h(
      'table',
      null,
      h('caption', { class: 'visually-hidden' }, 'Events of this message, newest first'),
      tableHead(['Occurred', 'Action', 'Side', 'Change']),
      h(
        'tbody',
        null,
        list.map((event) =>
          h(
            'tr',
            null,
            h('td', null, formatTime(event.occurredAt)),
            h('td', null, event.action),
            h('td', null, event.transfer),
            h('td', null, change(event)),
          ),
        ),
      ),
    ),
  );
}

/** @param {Envelope} event */
function change(event) {
  const { formerValue, newValue, properties } = event.data;
  if (newValue === undefined) return '';
  const details = Object.entries(properties ?? {})
    .filter(([name]) => name !== 'validationResults')
    .map(([name, value]) => `${name}: ${value}`)
    .join(', ');
  return `${formerValue} → ${newValue}${details === '' ? '' : ` (${details})`}`;
}

/**
 * An event in a few words, for the answer to a scenario action.
 * @param {Envelope} event
 */
export function describeEvent(event) {
  const text = change(event);
  return `${event.action} ${event.transfer}${text === '' ? '' : ` ${text.split(' (')[0]}`}`;
}
