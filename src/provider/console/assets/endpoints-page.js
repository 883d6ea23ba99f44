// @ts-check
/**
 * Endpoints (docs/webhook-endpoints.md#endpoints): list, create with an optional credential (section 5.2),
 * the signing secret shown once with a copy button, rotation with the old secret's time left,
 * delete. The 25-endpoint limit and every check on the input are the admin API's.
 */
import { api, explain, party } from './api.js';
import { formatTime, h, replace, statusRegion, tableHead, timeLeft } from './dom.js';
import { CREDENTIAL_TYPES, createEndpointForm, MAX_ENDPOINTS } from './endpoint-form.js';
import { showSecret } from './secret-panel.js';

/**
 * @typedef {{ id: string, name: string, url: string, credentialType: string | null,
 *   createdAt: string, previousSecretExpiresAt?: string }} Endpoint
 */

/** @param {import('./app.js').PageContext} context */
export async function renderEndpoints({ main }) {
  const status = statusRegion();
  const secretSlot = h('div');
  const list = h('div');
  const count = h('p', { class: 'hint' });
  const form = createEndpointForm();
  replace(
    main,
    h('h1', { tabindex: '-1' }, 'Endpoints'),
    h(
      'p',
      { class: 'lead' },
      'Where the sandbox sends webhooks. Each endpoint has its own signing secret, shown once when it is created or rotated. The first endpoint receives every event category until you change the routing.',
    ),
    secretSlot,
    status.element,
    list,
    h('h2', { id: 'new-endpoint' }, 'Add an endpoint'),
    count,
    form.element,
  );

  /** @type {Endpoint[]} */
  let endpoints = [];
  async function refresh() {
    endpoints = await api.get(`${party.path}/endpoints`);
    renderList();
  }

  function renderList() {
    count.textContent =
      endpoints.length >= MAX_ENDPOINTS
        ? `${endpoints.length} of ${MAX_ENDPOINTS} endpoints: that is the limit. Delete one to add another.`
        : `${endpoints.length} of ${MAX_ENDPOINTS} endpoints.`;
    form.setFull(endpoints.length >= MAX_ENDPOINTS);
    if (endpoints.length === 0) {
      replace(list, h('p', { class: 'empty' }, 'No endpoint yet: add one below.'));
      return;
    }
    replace(
      list,
      h(
        'table',
        null,
        h('caption', { class: 'visually-hidden' }, 'Webhook endpoints'),
        tableHead(['Name', 'URL', 'Credential', 'Created', 'Signing secret', 'Actions']),
        h('tbody', null, endpoints.map(row)),
      ),
    );
  }

  /** @param {Endpoint} endpoint */
  function row(endpoint) {
    const actions = h('td', { class: 'actions' });
    const showActions = () =>
      replace(
        actions,
        h(
          'a',
          { href: `#/test-event?endpoint=${encodeURIComponent(endpoint.id)}`, class: 'button' },
          'Send test event',
          h('span', { class: 'visually-hidden' }, ` to ${endpoint.name}`),
        ),
        h(
          'button',
          {
            type: 'button',
            'aria-label': `Rotate secret of ${endpoint.name}`,
            onclick: () =>
              ask(
                `Rotate the signing secret of ${endpoint.name}? The current one stays valid for 24 hours.`,
                'Rotate',
                () => rotate(endpoint),
              ),
          },
          'Rotate secret',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            'aria-label': `Delete ${endpoint.name}`,
            onclick: () => ask(`Delete ${endpoint.name}?`, 'Delete', () => remove(endpoint)),
          },
          'Delete',
        ),
      );
    /** Asks in place, so the question and its answer stay where the keyboard is. */
    const ask = (
      /** @type {string} */ question,
      /** @type {string} */ verb,
      /** @type {() => Promise<void>} */ act,
    ) => {
      const yes = h('button', { type: 'button', class: 'danger', onclick: act }, verb);
      replace(
        actions,
        h('span', { class: 'question' }, question),
        yes,
        h(
          'button',
          {
            type: 'button',
            onclick: () => {
              showActions();
              actions.querySelector('button')?.focus();
            },
          },
          'Cancel',
        ),
      );
      yes.focus();
    };
    showActions();
    const credential = CREDENTIAL_TYPES.find(([type]) => type === (endpoint.credentialType ?? ''));
    return h(
      'tr',
      null,
      h('th', { scope: 'row' }, endpoint.name),
      h('td', null, h('code', { class: 'url' }, endpoint.url)),
      h(
        'td',
        null,
        endpoint.credentialType === null ? 'None' : (credential?.[1] ?? endpoint.credentialType),
      ),
      h('td', null, formatTime(endpoint.createdAt)),
      h(
        'td',
        null,
        endpoint.previousSecretExpiresAt === undefined
          ? 'One secret'
          : `Rotated: the previous secret stays valid ${timeLeft(endpoint.previousSecretExpiresAt)} more (two signatures until then)`,
      ),
      actions,
    );
  }

  /** @param {Endpoint} endpoint */
  async function rotate(endpoint) {
    try {
      const rotated = await api.post(
        `${party.path}/endpoints/${encodeURIComponent(endpoint.id)}/rotate-secret`,
      );
      showSecret(
        secretSlot,
        `New signing secret of ${endpoint.name}`,
        rotated.secret,
        `The previous secret stays valid until ${formatTime(rotated.previousSecretExpiresAt)} (${timeLeft(rotated.previousSecretExpiresAt)} left). Until then every webhook carries two signatures, one per secret, so a consumer that knows either keeps accepting them: set WEBHOOK_SECRETS=<new>,<old> now and drop the old one later.`,
      );
      status.clear();
      await refresh();
    } catch (error) {
      status.error(explain(error));
      renderList();
    }
  }

  /** @param {Endpoint} endpoint */
  async function remove(endpoint) {
    try {
      await api.delete(`${party.path}/endpoints/${encodeURIComponent(endpoint.id)}`);
      status.ok(`Deleted ${endpoint.name}.`);
      await refresh();
    } catch (error) {
      status.error(explain(error));
      renderList();
    }
  }

  form.onCreated((created) =>
    showSecret(
      secretSlot,
      `Signing secret of ${created.name}`,
      created.secret,
      'The sandbox signs every webhook to this endpoint with it (SVC-Webhook-Signature).',
    ),
  );
  form.onChange(refresh);

  await refresh();
  return undefined;
}
