// @ts-check
/**
 * The scenario actions of the admin API (/admin/messages/:mid/<action>) as forms: what the
 * receiver, the network, a tax authority or a person in the management console would do.
 * Whether an action fits the message is the sandbox's call: every action is offered, and the
 * sandbox's answer shown.
 */
import { ApiError, api, explain } from './api.js';
import { field, h, select, statusRegion } from './dom.js';
import { describeEvent } from './message-events.js';

/** @typedef {import('./message-summary.js').Envelope} Envelope */

/**
 * @typedef {{ name: string, label: string, type?: 'text' | 'date', options?: [string, string][], value?: string }} Input
 */
/** @type {[string, string]} */
const OUTBOUND = ['outbound', 'outbound'];
/** @type {[string, string]} */
const INBOUND = ['inbound', 'inbound'];
/**
 * The side an action applies to; left empty, the sandbox's default for the action.
 * @type {Input}
 */
const SIDE = { name: 'transfer', label: 'Side', options: [['', 'default'], OUTBOUND, INBOUND] };
/** The text of a failure, as the errorMessage status property carries it. @type {Input} */
const ERROR_MESSAGE = { name: 'errorMessage', label: 'Error message' };

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
    inputs: [{ name: 'errorCode', label: 'Error code' }, ERROR_MESSAGE, SIDE],
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
    inputs: [ERROR_MESSAGE, SIDE],
  },
  {
    route: 'conclude-failure',
    title: 'Conclude failure',
    help: 'Manual handling ends and the failure stays: pendingfailure to failed.',
    inputs: [ERROR_MESSAGE, SIDE],
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
 * One form per scenario action on the message; each shows the sandbox's answer in `status`,
 * then calls `changed`.
 * @param {string} messageId
 * @param {ReturnType<typeof statusRegion>} status
 * @param {() => Promise<void>} changed
 */
export function scenarioActionForms(messageId, status, changed) {
  return ACTIONS.map((action) => {
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
            await changed();
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
}
