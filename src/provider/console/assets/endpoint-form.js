// @ts-check
/**
 * The form that adds an endpoint: name, URL and an optional credential whose fields follow its
 * type. The admin API checks the input; the fields its violations name are marked invalid.
 */
import { ApiError, api, explain, party } from './api.js';
import { field, h, replace, select, statusRegion } from './dom.js';

/** The admin API's limit per participant: at it, the form is disabled and says why. */
export const MAX_ENDPOINTS = 25;

/** The credential types the admin API takes, with the words the form and the list show. */
export const CREDENTIAL_TYPES = /** @type {[string, string][]} */ ([
  ['', 'None (signature only)'],
  ['bearer', 'Bearer token'],
  ['basic', 'Basic authentication'],
  ['header', 'Custom header'],
]);

/**
 * The form's element, and what the page hooks on it: setFull at the limit, onCreated to show
 * the new secret, onChange to reload the list.
 */
export function createEndpointForm() {
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
