// @ts-check
/**
 * One message: both sides' three statuses, validation findings, its events, and the scenario
 * actions of the admin API (/admin/messages/:mid/<action>): what the receiver, the network, a
 * tax authority or a person in the management console would do. Whether an action fits the
 * message is the sandbox's call: the console offers every action and shows the answer.
 */
import { api } from './api.js';
import { every, h, replace, statusRegion } from './dom.js';
import { renderMessageEvents } from './message-events.js';
import { renderMessageSummary } from './message-summary.js';
import { scenarioActionForms } from './scenario-actions.js';

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

  const actions = scenarioActionForms(messageId, status, refresh);

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
    renderMessageSummary(summary, message);
    renderMessageEvents(events, message);
  }

  await refresh();
  const poll = every(refresh, 2000);
  return () => poll.stop();
}
