// @ts-check
/** The state of an event in the delivery log, as its row shows it: delivered, retrying, exhausted. */
import { formatTime, h } from './dom.js';

/** @typedef {import('./delivery-details.js').Delivery} Delivery */

/** @param {Delivery} delivery */
export function deliveryState(delivery) {
  const last = delivery.attempts.at(-1);
  const lastResult =
    last === undefined
      ? ''
      : last.statusCode === undefined
        ? (last.error ?? '')
        : `last: status ${last.statusCode}`;
  switch (delivery.state) {
    case 'succeeded':
      return [
        h('span', { class: 'badge ok' }, 'Delivered'),
        ' ',
        h(
          'span',
          { class: 'hint' },
          last === undefined ? '' : `status ${last.statusCode} in ${last.responseTimeMs} ms`,
        ),
      ];
    case 'exhausted':
      return [
        h('span', { class: 'badge bad' }, 'Exhausted'),
        ' ',
        h('span', { class: 'reason' }, delivery.reason ?? ''),
      ];
    default:
      if (delivery.nextAttemptAt === undefined) return h('span', { class: 'badge' }, 'Sending');
      return [
        h('span', { class: 'badge warn' }, 'Retrying'),
        ' ',
        h(
          'span',
          { class: 'hint' },
          `next attempt ${formatTime(delivery.nextAttemptAt)}; ${lastResult}`,
        ),
      ];
  }
}
