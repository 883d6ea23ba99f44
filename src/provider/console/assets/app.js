// @ts-check
/**
 * The console's shell: one page per location hash (`#/endpoints`, `#/deliveries?state=...`),
 * the admin token form when the sandbox asks for one, and focus moved to a page's heading when
 * the user navigates, so keyboard and screen reader users land where the content changed.
 */
import { ApiError, adminTokenRequired, api, explain, token, whenUnauthorized } from './api.js';
import { renderDeliveries } from './deliveries-page.js';
import { field, h, replace, statusRegion } from './dom.js';
import { renderEndpoints } from './endpoints-page.js';
import { renderMessages } from './messages-page.js';
import { renderRouting } from './routing-page.js';
import { renderTestEvent } from './test-event-page.js';

/**
 * @typedef {{ main: HTMLElement, params: URLSearchParams, id: string | undefined }} PageContext
 * @typedef {(context: PageContext) => Promise<(() => void) | undefined>} Page
 */

/** @type {Record<string, { title: string, render: Page }>} */
const PAGES = {
  endpoints: { title: 'Endpoints', render: renderEndpoints },
  routing: { title: 'Routing', render: renderRouting },
  deliveries: { title: 'Delivery log', render: renderDeliveries },
  'test-event': { title: 'Test event', render: renderTestEvent },
  messages: { title: 'Messages', render: renderMessages },
};

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
/** @type {(() => void) | undefined} */
let leave;
let navigation = 0;

/** @param {{ focus: boolean }} options */
async function show({ focus }) {
  const hash = location.hash;
  // `#main` is the skip link, not a page.
  if (hash !== '' && !hash.startsWith('#/')) return;
  const [path = '', query = ''] = hash.slice(2).split('?');
  const [name = '', id] = path.split('/');
  const key = name in PAGES ? name : 'endpoints';
  const page = /** @type {{ title: string, render: Page }} */ (PAGES[key]);
  const current = ++navigation;
  leave?.();
  leave = undefined;
  for (const link of document.querySelectorAll('nav a')) {
    if (link.getAttribute('href') === `#/${key}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.title = `${page.title} · Sandbox console`;
  if (adminTokenRequired && token.get() === undefined) {
    askForToken();
    return;
  }
  replace(main, h('p', { class: 'loading' }, 'Loading…'));
  try {
    const stop = await page.render({
      main,
      params: new URLSearchParams(query),
      id: id === undefined || id === '' ? undefined : decodeURIComponent(id),
    });
    // The user went elsewhere while this page loaded.
    if (current !== navigation) stop?.();
    else leave = stop;
  } catch (error) {
    // A refused token: the token form has taken the page over.
    if (error instanceof ApiError && error.status === 401) return;
    replace(
      main,
      h('h1', { tabindex: '-1' }, page.title),
      h('p', { class: 'status error' }, explain(error)),
    );
  }
  if (focus && current === navigation) main.querySelector('h1')?.focus();
}

/** @param {string} [problem] why the form is shown again */
function askForToken(problem) {
  leave?.();
  leave = undefined;
  const input = h('input', {
    type: 'password',
    name: 'token',
    autocomplete: 'off',
    required: true,
  });
  const status = statusRegion();
  const form = h(
    'form',
    {
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        token.set(input.value.trim());
        try {
          await api.get('/participants');
          await show({ focus: true });
        } catch (error) {
          if (!(error instanceof ApiError && error.status === 401)) status.error(explain(error));
        }
      },
    },
    field('Admin token', input, 'The value of PROVIDER_ADMIN_TOKEN. It stays in this browser tab.'),
    h('button', { type: 'submit' }, 'Open the console'),
  );
  replace(
    main,
    h('h1', { tabindex: '-1' }, 'Admin token'),
    h(
      'p',
      null,
      'This sandbox protects its admin API with a token (PROVIDER_ADMIN_TOKEN), and the console uses that API.',
    ),
    form,
    status.element,
  );
  if (problem !== undefined) status.error(problem);
  input.focus();
}

whenUnauthorized(() => {
  const had = token.get() !== undefined;
  token.clear();
  askForToken(had ? 'The sandbox refused that token.' : undefined);
});
window.addEventListener('hashchange', () => void show({ focus: true }));
void show({ focus: false });
