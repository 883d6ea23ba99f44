// @ts-check
/**
 * One event of the delivery log opened: its ids, the endpoint it went to, every attempt with
 * its result, the headers each attempt sent and the body, the same bytes in every attempt.
 */
import { facts, formatTime, h, replace, tableHead } from './dom.js';

/**
 * @typedef {{ at: string, headers: Record<string, string>, statusCode?: number, error?: string,
 *   responseTimeMs: number, bodyStart: string }} Attempt
 * @typedef {{ eventId: string, action: string, transfer: string, messageId: string,
 *   occurredAt: string, state: 'pending' | 'succeeded' | 'exhausted', reason?: string,
 *   endpointId?: string, attempts: Attempt[], nextAttemptAt?: string, body?: string }} Delivery
 */

/**
 * Draws the details into `cell`, again on each new attempt.
 * @param {HTMLTableCellElement} cell
 * @param {Delivery} delivery
 * @param {string} endpoint the endpoint's name, or why there is none
 */
export function renderDeliveryDetails(cell, delivery, endpoint) {
  // Headers the user opened stay open when a new attempt redraws the details.
  const opened = new Set(
    [...cell.querySelectorAll('details[open] summary')].map((summary) => summary.textContent),
  );
  replace(
    cell,
    facts([
      ['Event id', h('code', null, delivery.eventId)],
      ['Message id', h('code', null, delivery.messageId)],
      ['Occurred at', h('code', null, delivery.occurredAt)],
      ['Endpoint', endpoint],
    ]),
    delivery.attempts.length === 0
      ? h('p', null, 'No attempt: nothing was sent.')
      : h(
          'table',
          { class: 'attempts' },
          h('caption', null, 'Attempts'),
          tableHead(['#', 'Time', 'Result', 'Response time', 'Start of the answer']),
          h(
            'tbody',
            null,
            delivery.attempts.map((attempt, index) =>
              h(
                'tr',
                null,
                h('th', { scope: 'row' }, String(index + 1)),
                h('td', null, formatTime(attempt.at)),
                h(
                  'td',
                  null,
                  attempt.statusCode === undefined
                    ? (attempt.error ?? '')
                    : `status ${attempt.statusCode}`,
                ),
                h('td', { class: 'number' }, `${attempt.responseTimeMs} ms`),
                h(
                  'td',
                  null,
                  h(
                    'code',
                    { class: 'body-start' },
                    attempt.bodyStart === '' ? '(empty)' : attempt.bodyStart,
                  ),
                ),
              ),
            ),
          ),
        ),
    delivery.attempts.map((attempt, index) =>
      h(
        'details',
        { open: opened.has(`Headers sent in attempt ${index + 1}`) },
        h('summary', null, `Headers sent in attempt ${index + 1}`),
        h(
          'pre',
          null,
          Object.entries(attempt.headers)
            .map(([name, value]) => `${name}: ${value}`)
            .join('\n'),
        ),
      ),
    ),
    h('h3', null, 'Body sent (the same bytes in every attempt)'),
    h('pre', { class: 'body' }, delivery.body ?? ''),
  );
}
