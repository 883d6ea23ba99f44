// @ts-check
/**
 * The panel that shows a new signing secret, once (docs/webhook-endpoints.md#endpoints): after
 * an endpoint is created and after its secret is rotated.
 */
import { copyText, field, h, replace } from './dom.js';

/**
 * The secret, once: it lives only in this panel, which goes away with "Done" or when the
 * user leaves the page. The sandbox never shows it again.
 * @param {HTMLElement} slot where the panel goes; emptied by Done
 * @param {string} title
 * @param {string} secret
 * @param {string} note
 */
export function showSecret(slot, title, secret, note) {
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
    slot,
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
      h('button', { type: 'button', onclick: () => replace(slot) }, 'Done'),
    ),
  );
  heading.focus();
}
