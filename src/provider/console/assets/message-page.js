// @ts-check
/**
 * One message: both sides' three statuses, validation findings, its events, and the scenario
 * actions of the admin API (/admin/messages/:mid/<action>): what the receiver, the network, a
 * tax authority or a person in the management console would do. Whether an action fits the
 * message is the sandbox's call: the console offers every action and shows the answer.
 */
import { ApiError, api, explain } from './api.js';
import { every, field, formatTime, h, replace, select, statusRegion } from './dom.js';

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
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['Type', 'Rule', 'Message', 'Location'].map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
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

/** @param {string} status */
export function statusBadge(status) {
  const tone =
    { delivered: 'ok', failed: 'bad', parked: 'bad', retrying: 'warn', pendingfailure: 'warn' }[
      status
    ] ?? '';
  return h('span', { class: `badge ${tone}` }, status);
}

/**
 * @typedef {{ name: string, label: string, type?: 'text' | 'date', options?: [string, string][], value?: string }} Input
 */
/** @type {[string, string][]} */
const SIDE = [
  ['', 'default'],
  ['outbound', 'outbound'],
  ['inbound', 'inbound'],
];
/** @type {[string, string]} */
const OUTBOUND = ['outbound', 'outbound'];
/** @type {[string, string]} */
const INBOUND = ['inbound', 'inbound'];

/**
 * The scenario actions (the admin API's /admin/messages/:mid/<action> routes) and their inputs.
 * @type {{ route: string, title: string, help: string, inputs: Input[] }[]}
 */
const ACTIONS = [
  {
    route: 'deliver',
    title: 'Deliver',
    help: "The receiver's access point confirms the delivery: the sender's side delivered. The receiver's side waits for its own mark-as-delivered.",
    inputs: [],
  },
  {
    route: 'fail',
    title: 'Fail delivery',
    help: 'A delivery attempt fails: retrying with this error, failed when the retries end.',
    inputs: [
      { name: 'errorCode', label: 'Error code' },
      { name: 'errorMessage', label: 'Error message' },
      { name: 'transfer', label: 'Side', options: SIDE },
    ],
  },
  {
    route: 'park',
    title: 'Park',
    help: 'Set aside by hand in the management console, with a reason (final).',
    inputs: [
      { name: 'reason', label: 'Reason', value: 'held for manual review' },
      { name: 'transfer', label: 'Side', options: [['', 'both'], OUTBOUND, INBOUND] },
    ],
  },
  {
    route: 'pending-failure',
    title: 'Pending failure',
    help: 'A failing delivery handed to manual handling (not final; retries stop).',
    inputs: [
      { name: 'errorMessage', label: 'Error message' },
      { name: 'transfer', label: 'Side', options: SIDE },
    ],
  },
  {
    route: 'conclude-failure',
    title: 'Conclude failure',
    help: 'Manual handling ends and the failure stays: pendingfailure to failed.',
    inputs: [
      { name: 'errorMessage', label: 'Error message' },
      { name: 'transfer', label: 'Side', options: SIDE },
    ],
  },
  {
    route: 'retry',
    title: 'Retry',
    help: 'A final message is sent again: a new delivery with new events.',
    inputs: [
      { name: 'transfer', label: 'Side', options: [['', 'every final side'], OUTBOUND, INBOUND] },
    ],
  },
  {
    route: 'tax-report',
    title: 'Tax report',
    help: 'A tax authority’s answer to the report of this invoice.',
    inputs: [
      {
        name: 'jurisdiction',
        label: 'Jurisdiction',
        options: [
          ['Croatia', 'Croatia'],
          ['Slovakia', 'Slovakia'],
        ],
      },
      {
        name: 'status',
        label: 'Outcome',
        options: [
          ['electronic', 'electronic'],
          ['non_electronic', 'non_electronic'],
          ['failed', 'failed'],
        ],
      },
    ],
  },
  {
    route: 'payment',
    title: 'Payment',
    help: 'The supplier registers a payment: lifecycle paid.',
    inputs: [
      { name: 'paidAmount', label: 'Paid amount', value: '1250.00' },
      {
        name: 'paymentDate',
        label: 'Payment date',
        type: 'date',
        value: new Date().toISOString().slice(0, 10),
      },
    ],
  },
  {
    route: 'rejection',
    title: 'Rejection',
    help: 'The customer rejects the invoice: lifecycle rejected.',
    inputs: [
      {
        name: 'rejectionType',
        label: 'Rejection type',
        options: [
          ['Other', 'Other'],
          ['MismatchNotAffectingTaxes', 'MismatchNotAffectingTaxes'],
          ['MismatchAffectingTaxes', 'MismatchAffectingTaxes'],
        ],
      },
      { name: 'reason', label: 'Reason', value: 'wrong order reference' },
    ],
  },
];

/**
 * One message: both sides' statuses, validation findings, the scenario actions and its events.
 * @param {string} messageId
 * @param {HTMLElement} main
 */
export async function renderMessage(messageId, main) {
  const summary = h('div');
  const events = h('div');
  const status = statusRegion();
  const heading = h('h1', { tabindex: '-1' }, `Message ${messageId.slice(0, 8)}`);

  const actions = ACTIONS.map((action) => {
    const controls = action.inputs.map((input) => {
      const control =
        input.options === undefined
          ? h('input', { type: input.type ?? 'text', name: input.name, value: input.value ?? '' })
          : select({ name: input.name }, input.options);
      return { input, control };
    });
    return h(
      'form',
      {
        class: 'action',
        'aria-label': action.title,
        onsubmit: async (/** @type {SubmitEvent} */ event) => {
          event.preventDefault();
          /** @type {Record<string, string>} */
          const body = {};
          for (const { input, control } of controls) {
            if (control.value !== '') body[input.name] = control.value;
          }
          try {
            /** @type {{ events: Envelope[] }} */
            const answer = await api.post(
              `/messages/${encodeURIComponent(messageId)}/${action.route}`,
              body,
            );
            status.ok(
              answer.events.length === 0
                ? `${action.title}: nothing changed.`
                : `${action.title}: ${answer.events.map(describeEvent).join('; ')}.`,
            );
            await refresh();
          } catch (error) {
            status.error(
              `${action.title}: ${explain(error)}`,
              error instanceof ApiError ? error.violations : [],
            );
          }
        },
      },
      h('h3', null, action.title),
      h('p', { class: 'hint' }, action.help),
      controls.map(({ input, control }) => field(input.label, control)),
      h('button', { type: 'submit' }, action.title),
    );
  });

  replace(
    main,
    h('p', null, h('a', { href: '#/messages' }, '← All messages')),
    heading,
    summary,
    h('h2', null, 'Play the other parties'),
    status.element,
    h('div', { class: 'actions-grid' }, actions),
    h('h2', null, 'Events'),
    events,
  );

  let last = '';
  async function refresh() {
    const message = await api.get(`/messages/${encodeURIComponent(messageId)}`);
    const json = JSON.stringify(message);
    if (json === last) return;
    last = json;
    heading.textContent = `Message ${message.documentNo || messageId.slice(0, 8)}`;
    replace(
      summary,
      h(
        'dl',
        { class: 'facts' },
        h('dt', null, 'Message id'),
        h('dd', null, h('code', null, message.id)),
        h('dt', null, 'From'),
        h('dd', null, `${message.origin.name} (${message.origin.identifier})`),
        h('dt', null, 'To'),
        h('dd', null, `${message.destination.name} (${message.destination.identifier})`),
        h('dt', null, 'Validation'),
        h('dd', null, message.validationStatus),
      ),
      h(
        'table',
        { class: 'sides' },
        h('caption', null, 'Statuses'),
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['Side', 'Delivery', 'Tax reporting', 'Lifecycle'].map((t) =>
              h('th', { scope: 'col' }, t),
            ),
          ),
        ),
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
    /** @type {Envelope[]} */
    const list = [...message.events].reverse();
    replace(
      events,
      h(
        'table',
        null,
        h('caption', { class: 'visually-hidden' }, 'Events of this message, newest first'),
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['Occurred', 'Action', 'Side', 'Change'].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
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

  await refresh();
  const poll = every(refresh, 2000);
  return () => poll.stop();
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

/** @param {Envelope} event */
function describeEvent(event) {
  const text = change(event);
  return `${event.action} ${event.transfer}${text === '' ? '' : ` ${text.split(' (')[0]}`}`;
}
