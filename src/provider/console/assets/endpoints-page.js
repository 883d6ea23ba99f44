// @ts-check
/**
 * Endpoints (docs/webhook-endpoints.md#endpoints): list, create with an optional credential (section 5.2),
 * the signing secret shown once with a copy button, rotation with the old secret's time left,
 * delete. The 25-endpoint limit and every check on the input are the admin API's.
 */
import { ApiError, api, explain, party } from './api.js';
import { copyText, field, formatTime, h, replace, select, statusRegion, timeLeft } from './dom.js';

const MAX_ENDPOINTS = 25;

/**
 * @typedef {{ id: string, name: string, url: string, credentialType: string | null,
 *   createdAt: string, previousSecretExpiresAt?: string }} Endpoint
 */

const CREDENTIAL_TYPES = /** @type {[string, string][]} */ ([
  ['', 'None (signature only)'],
  ['bearer', 'Bearer token'],
  ['basic', 'Basic authentication'],
  ['header', 'Custom header'],
]);

/** @param {import('./app.js').PageContext} context */
export async function renderEndpoints({ main }) {
  const status = statusRegion();
  const secretSlot = h('div');
  const list = h('div');
  const count = h('p', { class: 'hint' });
  const form = createForm();
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
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['Name', 'URL', 'Credential', 'Created', 'Signing secret', 'Actions'].map((t) =>
              h('th', { scope: 'col' }, t),
            ),
          ),
        ),
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

  /**
   * The secret, once: it lives only in this panel, which goes away with "Done" or when the
   * user leaves the page. The sandbox never shows it again.
   * @param {string} title
   * @param {string} secret
   * @param {string} note
   */
  function showSecret(title, secret, note) {
    const input = h('input', {
      type: 'text',
      readonly: true,
      value: secret,
      class: 'secret-value',
      spellcheck: 'false',
    });
    const copied = h('span', { role: 'status', class: 'copied' });
    const heading = h('h2', { tabindex: '-1' }, title);
    replace(
      secretSlot,
      h(
        'section',
        { class: 'secret', 'aria-label': title },
        heading,
        h(
          'p',
          null,
          'Shown once: copy it to the consumer now (WEBHOOK_SECRETS). It cannot be shown again.',
        ),
        h(
          'div',
          { class: 'secret-row' },
          field('Signing secret', input),
          h(
            'button',
            {
              type: 'button',
              onclick: async () => {
                input.select();
                copied.textContent = (await copyText(secret))
                  ? 'Copied.'
                  : 'Select the text and copy it (Ctrl+C).';
              },
            },
            'Copy',
          ),
          copied,
        ),
        h('p', null, note),
        h('button', { type: 'button', onclick: () => replace(secretSlot) }, 'Done'),
      ),
    );
    heading.focus();
  }

  form.onCreated((created) =>
    showSecret(
      `Signing secret of ${created.name}`,
      created.secret,
      'The sandbox signs every webhook to this endpoint with it (SVC-Webhook-Signature).',
    ),
  );
  form.onChange(refresh);

  await refresh();
  return undefined;
}

function createForm() {
  const name = h('input', { type: 'text', name: 'name', autocomplete: 'off' });
  const url = h('input', {
    type: 'url',
    name: 'url',
    placeholder: 'https://erp.example.com/webhooks',
    autocomplete: 'off',
  });
  const type = select({ name: 'credential' }, CREDENTIAL_TYPES, '');
  const inputs = {
    token: h('input', { type: 'text', autocomplete: 'off' }),
    username: h('input', { type: 'text', autocomplete: 'off' }),
    password: h('input', { type: 'password', autocomplete: 'new-password' }),
    header: h('input', { type: 'text', placeholder: 'X-Api-Key', autocomplete: 'off' }),
    value: h('input', { type: 'text', autocomplete: 'off' }),
  };
  const credentialFields = h('div', { class: 'credential-fields' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create endpoint');
  const status = statusRegion();
  /** @type {(created: { name: string, secret: string }) => void} */
  let created = () => {};
  /** @type {() => Promise<void>} */
  let changed = async () => {};

  const showCredentialFields = () => {
    const fields = {
      '': [],
      bearer: [field('Token', inputs.token, 'Sent as Authorization: Bearer <token>.')],
      basic: [field('Username', inputs.username), field('Password', inputs.password)],
      header: [field('Header name', inputs.header), field('Header value', inputs.value)],
    }[type.value];
    replace(credentialFields, fields ?? []);
  };
  type.addEventListener('change', showCredentialFields);

  const credential = () => {
    switch (type.value) {
      case 'bearer':
        return { type: 'bearer', token: inputs.token.value };
      case 'basic':
        return { type: 'basic', username: inputs.username.value, password: inputs.password.value };
      case 'header':
        return { type: 'header', name: inputs.header.value, value: inputs.value.value };
      default:
        return undefined;
    }
  };

  /** Marks the fields a violation names ("url: ...", "credential.token: ..."). */
  const markInvalid = (/** @type {readonly string[]} */ violations) => {
    const byField = {
      name,
      url,
      credential: type,
      'credential.token': inputs.token,
      'credential.username': inputs.username,
      'credential.password': inputs.password,
      'credential.name': inputs.header,
      'credential.value': inputs.value,
    };
    for (const [path, input] of Object.entries(byField)) {
      const bad = violations.some((v) => v.startsWith(`${path}:`) || v.startsWith(`${path} `));
      if (bad) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
    }
  };

  const element = h(
    'form',
    {
      'aria-labelledby': 'new-endpoint',
      novalidate: true,
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        const body = { name: name.value, url: url.value.trim(), credential: credential() };
        try {
          const answer = await api.post(`${party.path}/endpoints`, body);
          markInvalid([]);
          status.clear();
          name.value = '';
          url.value = '';
          type.value = '';
          showCredentialFields();
          await changed();
          created(answer);
        } catch (error) {
          const violations = error instanceof ApiError ? error.violations : [];
          markInvalid(violations);
          status.error(
            violations.length > 0 ? 'The endpoint was not created:' : explain(error),
            violations,
          );
        }
      },
    },
    field('Name', name),
    field('URL', url, 'https:// for the real service; plain http:// is accepted in this sandbox.'),
    field('Credential', type, 'Optional, sent besides the signature (never instead of it).'),
    credentialFields,
    submit,
    status.element,
  );

  return {
    element,
    /** @param {boolean} full */
    setFull(full) {
      submit.disabled = full;
      submit.title = full ? `At most ${MAX_ENDPOINTS} endpoints: delete one to add another.` : '';
    },
    /** @param {(created: { name: string, secret: string }) => void} handler */
    onCreated(handler) {
      created = handler;
    },
    /** @param {() => Promise<void>} handler */
    onChange(handler) {
      changed = handler;
    },
  };
}
