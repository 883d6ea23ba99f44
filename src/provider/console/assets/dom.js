// @ts-check
/**
 * Building blocks of the console's pages. Text goes in with textContent only, never as HTML:
 * the delivery log shows what endpoints answered, and that must never run as markup.
 */

/**
 * @typedef {Node | string | number | null | undefined | false} Child
 * @typedef {Record<string, unknown>} Props
 */

/**
 * An element: `props` become attributes (`on...` functions become listeners; `true` sets a
 * boolean attribute, `false`, null and undefined leave it out), children are nodes or text.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Props | null} [props]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    } else if (name === 'value' || name === 'checked') {
      Object.assign(element, { [name]: value });
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

/**
 * @param {Node} parent
 * @param {(Child | Child[])[]} children
 */
function append(parent, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/**
 * Replaces the content of `parent`.
 * @param {Element} parent
 * @param {...(Child | Child[])} children
 */
export function replace(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
}

/**
 * A table's header row, one column header per title: every table of the console has one.
 * @param {Child[]} titles
 */
export function tableHead(titles) {
  return h(
    'thead',
    null,
    h(
      'tr',
      null,
      titles.map((title) => h('th', { scope: 'col' }, title)),
    ),
  );
}

/**
 * A list of facts, term and value, as the pages of one message and one event show them.
 * @param {[string, Child][]} pairs
 */
export function facts(pairs) {
  return h(
    'dl',
    { class: 'facts' },
    pairs.flatMap(([term, value]) => [h('dt', null, term), h('dd', null, value)]),
  );
}

/** Ids for label/input pairs and aria references. */
let nextId = 0;
/** @param {string} prefix */
export const uid = (prefix) => `${prefix}-${++nextId}`;

/**
 * A labelled form field: the label, the control, and a hint below when given.
 * @param {string} label
 * @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} control
 * @param {string} [hint]
 */
export function field(label, control, hint) {
  control.id ||= uid('field');
  const hintId = hint === undefined ? undefined : `${control.id}-hint`;
  if (hintId !== undefined) control.setAttribute('aria-describedby', hintId);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: control.id }, label),
    control,
    hint === undefined ? null : h('p', { class: 'hint', id: hintId }, hint),
  );
}

/**
 * A <select> of [value, label] options.
 * @param {Props} props
 * @param {[string, string][]} options
 * @param {string} [selected]
 */
export function select(props, options, selected) {
  return h(
    'select',
    props,
    options.map(([value, label]) =>
      h('option', { value, selected: value === selected ? true : undefined }, label),
    ),
  );
}

/**
 * A polite live region: what an action did, or why the sandbox refused it, read out once.
 * @returns {{ element: HTMLElement, ok(text: string): void, error(text: string, details?: readonly string[]): void, clear(): void }}
 */
export function statusRegion() {
  const element = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
  return {
    element,
    ok(text) {
      element.className = 'status ok';
      replace(element, text);
    },
    error(text, details = []) {
      element.className = 'status error';
      replace(
        element,
        h('p', null, text),
        details.length === 0
          ? null
          : h(
              'ul',
              null,
              details.map((d) => h('li', null, d)),
            ),
      );
    },
    clear() {
      element.className = 'status';
      replace(element);
    },
  };
}

/**
 * "14:03:07", with the date in front when it is not today.
 * @param {string | undefined} iso
 */
export function formatTime(iso) {
  if (iso === undefined) return '';
  const date = new Date(iso);
  const time = date.toLocaleTimeString('en-GB', { hour12: false });
  return date.toDateString() === new Date().toDateString()
    ? time
    : `${date.toISOString().slice(0, 10)} ${time}`;
}

/**
 * "23 h 59 min" from now until `iso`; "expired" once it passed.
 * @param {string} iso
 */
export function timeLeft(iso) {
  const ms = Date.parse(iso) - Date.now();
  if (ms <= 0) return 'expired';
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return `${Math.ceil(ms / 1000)} s`;
  const hours = Math.floor(minutes / 60);
  return hours === 0 ? `${minutes} min` : `${hours} h ${minutes % 60} min`;
}

/**
 * Copies `text`; the clipboard API needs a secure context, which http://127.0.0.1 is.
 * @param {string} text
 * @returns {Promise<boolean>}
 */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `task` now and every `ms` while the page shows it; stop() ends it. A slow answer never
 * overlaps the next round.
 * @param {() => Promise<void>} task
 * @param {number} ms
 */
export function every(task, ms) {
  let stopped = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const round = async () => {
    if (stopped) return;
    if (document.visibilityState === 'visible') {
      try {
        await task();
      } catch (error) {
        console.error(error);
      }
    }
    if (!stopped) timer = setTimeout(round, ms);
  };
  void round();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
